"""The bundle's zip file: the manifest (every file's SHA-256, the content hash to cite, the
code that wrote it, the signing key's id), the files, and the manifest's signature. Entries
are written in name order with a fixed date, so the same files give the same zip."""

import json
import os
import zipfile
from pathlib import Path
from typing import IO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from leaderboard.exports.bundles import layout, signing

# Zip entries carry this date, not the moment of writing (the manifest says when).
ENTRY_DATE = (2000, 1, 1, 0, 0, 0)
# Where the code's commit is looked for, in this order; see `code_commit`.
COMMIT_ENV = "CONCORD_COMMIT"
_ROOT = Path(__file__).resolve().parents[2]


def code_commit() -> str:
    """The commit of the running code: CONCORD_COMMIT (set at install or image build), else
    the checkout's git HEAD, else "unknown" (the manifest then names the version only)."""
    stated = os.environ.get(COMMIT_ENV, "").strip()
    if stated:
        return stated
    git = _ROOT / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head
        ref = head[5:]
        loose = git / ref
        if loose.exists():
            return loose.read_text().strip()
        for line in (git / "packed-refs").read_text().splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0]
    except OSError:
        pass
    return "unknown"


def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ENTRY_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


def archive_write(
    out: IO[bytes], files: dict[str, bytes], *, header: dict, key: Ed25519PrivateKey | None
) -> dict:
    """Write `files` with their manifest (`header` plus the file list) and, given `key`, the
    manifest's signature. Returns the manifest."""
    listed = layout.file_list(files)
    manifest = {
        **header,
        "format": layout.FORMAT,
        "version": layout.VERSION,
        "bundle_sha256": layout.content_sha256(listed),
        "files": listed,
    }
    if key is not None:
        manifest["signing"] = {
            "algorithm": signing.ALGORITHM,
            "key_id": signing.key_id(key.public_key()),
            "public_key": "/api/signing-key/",
        }
    manifest_bytes = json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False).encode()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(_entry(layout.MANIFEST), manifest_bytes)
        if key is not None:
            entry = signing.signature_entry(manifest_bytes, key)
            archive.writestr(_entry(layout.SIGNATURE), layout.json_bytes(entry))
        for name, data in sorted(files.items()):
            archive.writestr(_entry(name), data)
    return manifest
