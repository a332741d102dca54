"""Many experts asking for work and submitting at the same moment, on the real database
(the PostgreSQL stage of CI runs this against PostgreSQL)."""

import threading
from collections import Counter

import pytest
from django.db import connection, transaction
from django.urls import reverse

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, ReviewItem, Vote
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import AssignmentBusy, assignment_next
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


def _hold_every_item(round_, held: threading.Event, release: threading.Event) -> None:
    """Another expert's transaction that keeps every item of the round locked."""
    try:
        with transaction.atomic():
            list(ReviewItem.objects.filter(round=round_).select_for_update())
            held.set()
            release.wait(timeout=60)
    finally:
        connection.close()


@pytest.fixture
def held_round(review_data, experts):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's; the PostgreSQL stage of CI runs this")
    benchmark, systems = review_data
    round_ = round_open(
        benchmark=benchmark, name="held", systems=systems, experts=experts, fraction=0.3
    )
    held, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold_every_item, args=(round_, held, release))
    holder.start()
    assert held.wait(timeout=30)
    yield round_, release
    release.set()
    holder.join(timeout=30)


def test_an_expert_waits_for_an_item_another_transaction_holds_briefly(held_round, experts):
    round_, release = held_round
    threading.Timer(0.3, release.set).start()
    assignment = assignment_next(expert=experts[0], round_=round_)
    assert assignment is not None and assignment.item.round_id == round_.pk


def test_items_held_too_long_ask_the_expert_to_try_again_and_create_nothing(
    held_round, experts, client
):
    round_, _release = held_round
    with pytest.raises(AssignmentBusy, match="ask for the next item again"):
        assignment_next(expert=experts[0], round_=round_)
    client.force_login(experts[1])
    page = client.post(reverse("review-next", args=[round_.pk]), follow=True)
    assert "Many experts are taking items at this moment" in page.content.decode()
    assert not Assignment.objects.filter(item__round=round_).exists()
    assert set(round_.items.values_list("assigned_count", flat=True)) == {0}


def test_a_submit_while_items_are_held_keeps_the_votes_and_asks_to_try_again(
    review_data, experts, client
):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's; the PostgreSQL stage of CI runs this")
    benchmark, systems = review_data
    round_ = round_open(
        benchmark=benchmark, name="held-submit", systems=systems, experts=experts, fraction=0.3
    )
    assignment = assignment_next(expert=experts[0], round_=round_)
    criteria = item_criteria(assignment=assignment)
    form = {"base_revision": str(assignment.revision), "active_seconds": "5", "comment": ""}
    form.update({f"hit-{c.pk}": "1" for c in criteria})
    held, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=_hold_every_item, args=(round_, held, release))
    holder.start()
    try:
        assert held.wait(timeout=30)
        client.force_login(experts[0])
        page = client.post(reverse("review-submit", args=[assignment.pk]), form, follow=True)
    finally:
        release.set()
        holder.join(timeout=30)
    body = page.content.decode()
    assert "Submitted. Many experts are taking items at this moment." in body
    assignment.refresh_from_db()
    assert assignment.status == "submitted"
    assert Vote.objects.filter(assignment=assignment).count() == len(criteria)
    assert Assignment.objects.filter(expert=experts[0]).count() == 1
