"""Many experts asking for work and submitting at the same moment, on the real database
(the PostgreSQL stage of CI runs this against PostgreSQL)."""

import threading
from collections import Counter

import pytest
from django.db import connection

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, ReviewItem, Vote
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 8


def work(expert, round_, errors: list) -> None:
    try:
        barrier.wait(timeout=30)
        while (assignment := assignment_next(expert=expert, round_=round_)) is not None:
            votes = [
                VoteInput(c.pk, c.position % 2 == 0) for c in item_criteria(assignment=assignment)
            ]
            assignment_submit(
                assignment=assignment,
                votes=votes,
                comment="",
                active_seconds=3,
                base_revision=assignment.revision,
            )
    except Exception as exc:  # reported to the test thread, which fails
        errors.append(repr(exc))
    finally:
        connection.close()


barrier = threading.Barrier(THREADS)


@pytest.mark.parametrize("repeat", range(3))
def test_concurrent_experts_never_exceed_three_raters_and_lose_no_vote(review_data, repeat):
    benchmark, systems = review_data
    experts = [
        user_create_with_role(username=f"c{repeat}-{i}", password="x-pass-123", role=EXPERT)
        for i in range(THREADS)
    ]
    round_ = round_open(
        benchmark=benchmark, name=f"race-{repeat}", systems=systems, experts=experts, fraction=0.6
    )
    errors: list = []
    threads = [threading.Thread(target=work, args=(e, round_, errors)) for e in experts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    items = ReviewItem.objects.filter(round=round_)
    assignments = Assignment.objects.filter(item__round=round_)
    per_item = Counter(assignments.values_list("item_id", flat=True))
    assert set(per_item.values()) == {3} and len(per_item) == items.count() == 18
    pairs = list(assignments.values_list("item_id", "expert_id"))
    assert len(pairs) == len(set(pairs))
    assert set(assignments.values_list("status", flat=True)) == {"submitted"}
    votes = Vote.objects.filter(assignment__item__round=round_)
    assert votes.count() == 18 * 3 * 4  # every criterion of every assignment, once
    assert all(item.assigned_count == 3 for item in items)
