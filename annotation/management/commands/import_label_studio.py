from django.core.management.base import BaseCommand

from annotation.interop.label_studio_import import label_studio_votes_import
from annotation.management.commands._importing import run_import


class Command(BaseCommand):
    help = (
        "Import votes made in Label Studio: its JSON export of tasks labelled with the config "
        "that export_label_studio writes (controls criterion_N, note_N; each annotation's "
        "completed_by names the rater). A new round is created over exactly the file's responses."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path")
        parser.add_argument(
            "--round", dest="round_name", required=True, help="round name (created if new)"
        )
        parser.add_argument(
            "--benchmark",
            default=None,
            help="benchmark slug of a new round (default: the one holding the question_ids)",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON summary")

    def handle(
        self, *args, path: str, round_name: str, benchmark: str | None, json: bool, **options
    ) -> None:
        summary = run_import(
            self,
            path,
            json,
            lambda chunks: label_studio_votes_import(
                data=chunks.read(), round_name=round_name, benchmark_slug=benchmark
            ),
        )
        if not json:
            created = "created" if summary["created_round"] else "existing"
            self.stdout.write(
                f"round {summary['round']!r} ({created}): {summary['items']} items, "
                f"{summary['assignments']} submissions, {summary['votes']} votes"
            )
            if summary["raters_created"]:
                self.stdout.write(
                    f"new expert accounts (no password yet): {', '.join(summary['raters_created'])}"
                )
            for warning in summary["warnings"]:
                self.stderr.write(f"warning: {warning}")
