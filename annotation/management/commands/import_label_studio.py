from django.core.management.base import BaseCommand

from annotation.interop.label_studio_import import label_studio_votes_import
from annotation.management.commands._importing import (
    add_votes_arguments,
    run_import,
    votes_summary_write,
)


class Command(BaseCommand):
    help = (
        "Import votes made in Label Studio: its JSON export of tasks labelled with the config "
        "that export_label_studio writes (controls criterion_N, note_N; each annotation's "
        "completed_by names the rater). A new round is created over exactly the file's responses."
    )

    def add_arguments(self, parser) -> None:
        add_votes_arguments(parser)

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
            votes_summary_write(self, summary)
