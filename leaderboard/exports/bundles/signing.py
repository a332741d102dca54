"""Ed25519 signatures of a bundle's manifest (no Django here). The signature covers the
manifest's exact bytes, and the manifest pins every other file by its SHA-256, so one
signature vouches for the whole bundle. The key id (the first 16 hex digits of the SHA-256
of the raw public key) is in the manifest, so keys can rotate: a verifier picks the key an
old bundle names among the installation's published keys."""

import base64
import hashlib
import json

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ALGORITHM = "ed25519"


class KeyUnreadable(ValueError):
    """A key file or key listing that holds no Ed25519 public key; the message says why."""


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def public_pem(public: Ed25519PublicKey) -> str:
    return public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()


def private_pem(private: Ed25519PrivateKey) -> bytes:
    return private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def private_from_pem(data: bytes) -> Ed25519PrivateKey:
    key = serialization.load_pem_private_key(data, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyUnreadable("the signing key is not an Ed25519 key")
    return key


def signature_entry(manifest: bytes, private: Ed25519PrivateKey) -> dict:
    """The signature file's content for the manifest's bytes."""
    return {
        "algorithm": ALGORITHM,
        "key_id": key_id(private.public_key()),
        "signature": base64.b64encode(private.sign(manifest)).decode(),
    }


def _public_from_pem(text: str) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(text.encode())
    except ValueError as exc:
        raise KeyUnreadable(f"not a PEM public key ({exc})") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise KeyUnreadable("the public key is not an Ed25519 key")
    return key


def public_keys(data: bytes) -> dict[str, Ed25519PublicKey]:
    """The public keys in `data`, by key id: a PEM public key, or the JSON that
    GET /api/signing-key/ returns (every key of the installation, current and retired)."""
    try:
        text = data.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        raise KeyUnreadable("the key is not text") from exc
    if text.startswith("-----BEGIN"):
        key = _public_from_pem(text)
        return {key_id(key): key}
    try:
        listing = json.loads(text)
    except ValueError as exc:
        raise KeyUnreadable("neither a PEM public key nor the JSON of /api/signing-key/") from exc
    entries = listing.get("keys") if isinstance(listing, dict) else None
    if not isinstance(entries, list) or not entries:
        raise KeyUnreadable("the key listing has no 'keys'")
    keys = {}
    for entry in entries:
        pem = entry.get("public_key_pem") if isinstance(entry, dict) else None
        if not isinstance(pem, str):
            raise KeyUnreadable("a key in the listing has no 'public_key_pem'")
        key = _public_from_pem(pem)
        keys[key_id(key)] = key
    return keys


def signature_problem(manifest: bytes, entry, keys: dict[str, Ed25519PublicKey]) -> str:
    """Why the signature `entry` does not vouch for `manifest` with one of `keys`; empty
    when it does."""
    if not isinstance(entry, dict) or entry.get("algorithm") != ALGORITHM:
        return f"the signature is not an {ALGORITHM} signature"
    wanted = entry.get("key_id")
    key = keys.get(wanted)
    if key is None:
        return f"signed with key {wanted}, and the key given is {', '.join(sorted(keys)) or 'none'}"
    try:
        key.verify(base64.b64decode(entry.get("signature", ""), validate=True), manifest)
    except (InvalidSignature, ValueError):
        return f"the signature does not match the manifest under key {wanted}"
    return ""
