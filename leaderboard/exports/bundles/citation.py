"""A published leaderboard's bundle hash, for citing: the SHA-256 of its manifest's file
list (`layout.content_sha256`), the same however often the bundle is downloaded and
whichever key signed it. Computing it writes the bundle's files once, so it is kept in a
small file under the var directory, refreshed whenever a bundle is written."""

from pathlib import Path

from django.conf import settings

from config.version import CONCORD_VERSION
from leaderboard.exports.bundles import layout


def _path(snapshot_id: int) -> Path:
    folder = Path(settings.VAR_DIR) / "bundles"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{snapshot_id}-v{layout.VERSION}-{CONCORD_VERSION}.sha256"


def bundle_hash_store(*, snapshot_id: int, value: str) -> None:
    path = _path(snapshot_id)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(value + "\n")
    partial.replace(path)


def bundle_hash(snapshot) -> str:
    """The snapshot's bundle hash, as its bundle's manifest states it."""
    path = _path(snapshot.pk)
    if path.exists():
        return path.read_text().strip()
    from leaderboard.exports.bundles.build import bundle_files  # builds the PDF: loaded when needed

    files = bundle_files(snapshot)
    value = layout.content_sha256(layout.file_list(files))
    bundle_hash_store(snapshot_id=snapshot.pk, value=value)
    return value
