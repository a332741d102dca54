"""Drift anchors for the judging tests: a closed round on some systems' responses, voted
by one expert, and the anchor set made from it with the service coordinators use."""

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, ReviewRound, System
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open, round_set_status
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import AnchorSet
from judging.services.anchors import anchor_set_create


def anchors_on(benchmark: Benchmark, systems: list[System], **options) -> AnchorSet:
    """Anchors from every response of `systems`: the expert says "met" to odd criteria."""
    expert = user_create_with_role(username="anchor-expert", password="x-pass-123", role=EXPERT)
    round_ = round_open(
        benchmark=benchmark,
        name="anchors",
        systems=systems,
        experts=[expert],
        fraction=1.0,
        raters_per_item=1,
    )
    while (assignment := assignment_next(expert=expert, round_=round_)) is not None:
        assignment_submit(
            assignment=assignment,
            votes=[
                VoteInput(c.pk, c.position % 2 == 1) for c in item_criteria(assignment=assignment)
            ],
            comment="",
            active_seconds=30,
            base_revision=0,
        )
    round_set_status(round_=round_, status=ReviewRound.Status.CLOSED)
    return anchor_set_create(round_=round_, **{"seed": 1, **options})
