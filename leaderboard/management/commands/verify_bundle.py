import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.bundles.verify import verify_bundle


class Command(BaseCommand):
    help = (
        "Check an evidence bundle from the bundle alone: every file against its manifest, the "
        "scores and the agreement recomputed; exits non-zero, naming the files, on a mismatch."
    )
    requires_system_checks: list = []

    def add_arguments(self, parser) -> None:
        parser.add_argument("path")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    @no_translations
    def handle(self, *args, path, **opts) -> None:
        result = verify_bundle(path)
        if opts["json"]:
            self.stdout.write(json.dumps(result.as_dict(), ensure_ascii=False))
        else:
            for line in result.checked:
                self.stdout.write(f"checked: {line}")
            for problem in result.problems:
                self.stdout.write(f"MISMATCH in {problem.file}: {problem.message}")
        if not result.ok:
            files = sorted({p.file for p in result.problems})
            raise CommandError(f"the bundle does not hold what it claims: {', '.join(files)}")
        if not opts["json"]:
            self.stdout.write("ok: the bundle holds what it claims")
