from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.exports.bundles.build import bundle_write
from leaderboard.management.cli import add_json_argument, write_result
from leaderboard.models import LeaderboardSnapshot


class Command(BaseCommand):
    help = "Write a published leaderboard's evidence bundle (a zip file) to PATH."

    def add_arguments(self, parser) -> None:
        parser.add_argument("snapshot", type=int, help="the published leaderboard's id")
        parser.add_argument("path")
        parser.add_argument(
            "--lean",
            action="store_true",
            help="leave out the response texts, the messages sent to the judge and its raw "
            "replies (the manifest says so); everything else is still checked",
        )
        add_json_argument(parser)

    @no_translations
    def handle(self, *args, snapshot, path, lean=False, **opts) -> None:
        found = LeaderboardSnapshot.objects.filter(pk=snapshot).first()
        if found is None:
            raise CommandError(f"no published leaderboard {snapshot}")
        target = Path(path)
        partial = target.with_name(target.name + ".partial")
        try:
            with partial.open("wb") as out:
                bundle_write(found, out, lean=lean)
            partial.replace(target)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise CommandError(f"cannot write {target}: {exc.strerror}") from exc
        size = target.stat().st_size
        write_result(
            self,
            as_json=opts.get("json", False),
            summary={"path": str(target), "bytes": size, "lean": lean, "snapshot": snapshot},
            text=f"wrote {target} ({size} bytes)",
        )
