from django.core.management.base import BaseCommand

from annotation.management.commands._importing import (
    add_votes_arguments,
    run_import,
    votes_summary_write,
)
from annotation.services.votes_import import votes_import


class Command(BaseCommand):
    help = (
        "Import votes collected outside the app: a CSV file with the header "
        "rater,question_id,system,criterion,hit[,note] (criterion: the 1-based position in "
        "the rubric; hit: 0 or 1). A new round is created over exactly the file's responses."
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
            lambda chunks: votes_import(
                chunks=chunks, round_name=round_name, benchmark_slug=benchmark
            ),
        )
        if not json:
            votes_summary_write(self, summary)
