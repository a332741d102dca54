"""The installation's signing keys, in files under the var directory (never in the
database): `signing/<key id>.pem`, each readable by its owner only (0600), and
`signing/current`, the id of the key that signs new bundles. Retired keys stay, so the
public keys of old bundles are still published."""

import os
from datetime import UTC, datetime
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.conf import settings

from leaderboard.exports.bundles import signing

CURRENT = "current"


def _directory() -> Path:
    path = Path(settings.VAR_DIR) / "signing"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def _write_private(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(data)


def signing_key_rotate() -> str:
    """Make a new key the current one; the old ones are kept. Returns the new key id."""
    private = Ed25519PrivateKey.generate()
    ident = signing.key_id(private.public_key())
    folder = _directory()
    _write_private(folder / f"{ident}.pem", signing.private_pem(private))
    partial = folder / f"{CURRENT}.partial"
    partial.write_text(ident + "\n")
    partial.replace(folder / CURRENT)
    return ident


def signing_key_current() -> Ed25519PrivateKey:
    """The key that signs new bundles, made on first use."""
    folder = _directory()
    marker = folder / CURRENT
    if not marker.exists():
        signing_key_rotate()
    ident = marker.read_text().strip()
    return signing.private_from_pem((folder / f"{ident}.pem").read_bytes())


def signing_keys_public() -> list[dict]:
    """Every key's public half, the current one first, then the newest."""
    folder = _directory()
    marker = folder / CURRENT
    current = marker.read_text().strip() if marker.exists() else ""
    keys = []
    for path in folder.glob("*.pem"):
        public = signing.private_from_pem(path.read_bytes()).public_key()
        keys.append(
            {
                "key_id": signing.key_id(public),
                "algorithm": signing.ALGORITHM,
                "public_key_pem": signing.public_pem(public),
                "current": path.stem == current,
                "created": datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).isoformat(),
            }
        )
    keys.sort(key=lambda k: k["created"], reverse=True)
    return sorted(keys, key=lambda k: not k["current"])
