"""Building tampered evidence bundles for the tests: a demo bundle's files read out, changed
and written back with the manifest made to match, as an attacker would."""

import hashlib
import io
import json
import zipfile

from leaderboard.bundles import layout

PREFIX = "evaluations/{id}/"


def read_files(data: bytes) -> dict[str, bytes]:
    source = zipfile.ZipFile(io.BytesIO(data))
    return {name: source.read(name) for name in source.namelist()}


def write_files(files: dict[str, bytes], *, rewrite_manifest: bool = True) -> bytes:
    """The files as a zip; with `rewrite_manifest`, the manifest lists them as they are now
    (and the now-stale signature is kept as it was)."""
    files = dict(files)
    if rewrite_manifest:
        manifest = json.loads(files[layout.MANIFEST])
        manifest["files"] = {
            name: {"sha256": hashlib.sha256(content).hexdigest(), "bytes": len(content)}
            for name, content in sorted(files.items())
            if name not in (layout.MANIFEST, layout.SIGNATURE)
        }
        manifest["bundle_sha256"] = layout.content_sha256(manifest["files"])
        files[layout.MANIFEST] = json.dumps(manifest, indent=1, sort_keys=True).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name, content in files.items():
            target.writestr(name, content)
    return out.getvalue()


def load(files: dict[str, bytes], name: str):
    return json.loads(files[name])


def store(files: dict[str, bytes], name: str, value) -> None:
    files[name] = layout.json_bytes(value)
