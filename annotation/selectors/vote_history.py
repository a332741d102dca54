"""The experts' votes as they stood at a moment: what a gate evaluation recorded then read.

Votes are never changed: a revision adds rows. So the votes current at time T are, per
submitted assignment, its newest revision written at or before T.
"""

from datetime import datetime

from django.db.models import Max

from annotation.models import ReviewRound, Vote


def votes_as_of(*, round_: ReviewRound, when: datetime) -> list[tuple[int, int, int, bool]]:
    """(response id, criterion id, expert id, hit) of every vote current at `when`. Two
    queries."""
    written = Vote.objects.filter(assignment__item__round=round_, created__lte=when)
    newest = dict(
        written.values("assignment_id")
        .annotate(r=Max("revision"))
        .values_list("assignment_id", "r")
    )
    return [
        (response, criterion, expert, hit)
        for assignment, revision, response, criterion, expert, hit in written.values_list(
            "assignment_id",
            "revision",
            "assignment__item__response_id",
            "criterion_id",
            "assignment__expert_id",
            "hit",
        ).order_by("assignment__item_id", "criterion__position", "assignment_id")
        if newest.get(assignment) == revision
    ]
