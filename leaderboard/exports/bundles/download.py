import tempfile

from django.http import FileResponse

from leaderboard.exports.bundles.build import bundle_write
from leaderboard.models import LeaderboardSnapshot


def bundle_filename(snapshot: LeaderboardSnapshot) -> str:
    return f"{snapshot.benchmark.slug}-leaderboard-{snapshot.pk}-evidence.zip"


def bundle_response(snapshot: LeaderboardSnapshot) -> FileResponse:
    """The bundle as a download, written to a temporary file first (kept in memory up to
    16 MB) so the zip's directory can be finished before the first byte is sent."""
    # FileResponse closes the file once it is sent.
    spool = tempfile.SpooledTemporaryFile(max_size=16 * 1024 * 1024)  # noqa: SIM115
    bundle_write(snapshot, spool)
    spool.seek(0)
    return FileResponse(
        spool,
        as_attachment=True,
        filename=bundle_filename(snapshot),
        content_type="application/zip",
    )
