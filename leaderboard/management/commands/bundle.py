from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.bundles.build import bundle_write
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
        self.stdout.write(f"wrote {target} ({target.stat().st_size} bytes)")
