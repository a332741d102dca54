"""Votes made in Label Studio, loaded into a review round."""

from annotation.interop.label_studio import read_label_studio_votes
from annotation.services.votes_import import VotesImportSummary, votes_import_rows


def label_studio_votes_import(
    *, data: bytes, round_name: str, benchmark_slug: str | None = None, user=None
) -> VotesImportSummary:
    """Load the votes of a Label Studio export (annotation.interop.label_studio) into the
    round named `round_name`, by the rules of `votes_import`: a new round is created over
    exactly the export's responses, each rater (an annotation's `completed_by`) becomes an
    expert, and a file with any error writes nothing."""
    return votes_import_rows(
        rows=read_label_studio_votes(data),
        round_name=round_name,
        benchmark_slug=benchmark_slug,
        user=user,
    )
