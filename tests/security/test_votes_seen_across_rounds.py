"""Attacker's finding 18: a senior expert adjudicated an item, reading its votes, and was
later handed the same response to rate in another round. What was read follows the
response: whoever has read the votes on a response is never handed it again, in any round,
nor given it by reassignment."""

import pytest
from django.urls import reverse

from accounts.roles import SENIOR_EXPERT
from annotation.models import Assignment, ReviewItem
from annotation.services.review_assignment import (
    AssignmentRefused,
    assignment_next,
    assignment_reassign,
)
from annotation.services.review_rounds import round_open
from tests.annotation.review.conftest import experts, review_data  # noqa: F401
from tests.conftest import client_for
from tests.security.votes_read import person, rate


def test_an_adjudicator_is_never_handed_a_response_whose_votes_it_read(
    review_data,  # noqa: F811
    experts,  # noqa: F811
):
    benchmark, systems = review_data
    senior = person("senior-18", SENIOR_EXPERT)
    first = round_open(
        benchmark=benchmark,
        name="first",
        systems=systems,
        experts=experts[:2],
        fraction=1.0,
        raters_per_item=2,
    )
    one = rate(experts[0], first, [True, True, False, False], note="看第一句")
    two = rate(experts[1], first, [False, True, True, False], note="看第二句")
    assert one.item_id == two.item_id
    page = client_for(senior).get(reverse("review-adjudicate", args=[one.item_id]))
    assert page.status_code == 200
    response_id = one.item.response_id

    later = round_open(
        benchmark=benchmark,
        name="later",
        systems=systems,
        experts=[senior, experts[2]],
        fraction=1.0,
        raters_per_item=1,
        max_items_per_expert=1000,
    )
    assert ReviewItem.objects.filter(round=later, response_id=response_id).exists()
    # The other pool member takes nothing yet: the item stays open to the senior expert.
    handed = []
    while (assignment := assignment_next(expert=senior, round_=later)) is not None:
        handed.append(assignment.item.response_id)
        Assignment.objects.filter(pk=assignment.pk).update(status="submitted")
    assert len(handed) == later.items.count() - 1
    assert response_id not in handed
    # Nor by hand.
    theirs = assignment_next(expert=experts[2], round_=later)
    assert theirs.item.response_id == response_id
    with pytest.raises(AssignmentRefused, match="votes"):
        assignment_reassign(assignment=theirs, to_expert=senior)
