"""Items reach their consensus in the seeded hand-out order, so the sequential gate (which
counts an item once it and every item before it are settled) can decide early. A pool of
experts working side by side must keep the settled prefix growing with the work done, not
fill several far-apart stretches of the order at once."""

import pytest

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, ReviewItem
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def settled_prefix(round_) -> int:
    """How many items, from the first in the hand-out order, all have their raters' work."""
    done = 0
    for item in ReviewItem.objects.filter(round=round_).order_by("hand_out_rank"):
        submitted = Assignment.objects.filter(item=item, status="submitted").count()
        if submitted < round_.raters_per_item:
            break
        done += 1
    return done


def test_the_settled_prefix_grows_with_the_work_of_a_pool(review_data):
    benchmark, systems = review_data
    experts = [
        user_create_with_role(username=f"pool{i}", password=PASSWORD, role=EXPERT)
        for i in range(12)
    ]
    round_ = round_open(
        benchmark=benchmark, name="Prefix", systems=systems, experts=experts, fraction=1.0
    )
    # Everyone works at the same pace: a round of claims, then everyone submits.
    submissions = 0
    for _ in range(3):
        claimed = [assignment_next(expert=e, round_=round_) for e in experts]
        for assignment in claimed:
            Assignment.objects.filter(pk=assignment.pk).update(status="submitted")
            submissions += 1
    # 36 ratings are 12 items' worth at 3 raters each: nearly all of them are the first 12.
    assert settled_prefix(round_) >= 0.75 * submissions / round_.raters_per_item
