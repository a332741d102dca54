"""Attacker's finding 22: one expert asking for items from several tabs at once was handed
more than the round allows: with max_items_per_expert=3, 4 items in 4 of 8 rounds with 4
tabs, and two items open at once in 34 of 40 trials with 2 tabs. The database keeps both
rules (one open item per expert in a round, and the cap), whatever the tabs do at once.

Real threads on real connections; row locks are PostgreSQL's, so this runs in CI's
PostgreSQL stage (DATABASE_URL)."""

import threading

import pytest
from django.db import connection

from annotation.models import Assignment
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import AssignmentBusy, assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit
from tests.annotation.review.conftest import experts, review_data  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

TABS = 4
TRIALS = 8
CAP = 3
OPEN = (Assignment.Status.ASSIGNED, Assignment.Status.IN_PROGRESS)


def _next(expert, round_):
    while True:
        try:
            return assignment_next(expert=expert, round_=round_)
        except AssignmentBusy:
            continue


def _tab(expert, round_, barrier, work: bool, handed: list, errors: list) -> None:
    """One browser tab: asks for the next item at the same moment as the others; with
    `work`, answers it and asks again until nothing is left."""
    try:
        barrier.wait(timeout=30)
        while (assignment := _next(expert, round_)) is not None:
            handed.append(assignment.pk)
            if not work:
                return
            votes = [VoteInput(c.pk, True) for c in item_criteria(assignment=assignment)]
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


def _tabs(expert, round_, *, work: bool) -> list[int]:
    barrier = threading.Barrier(TABS)
    handed: list[int] = []
    errors: list[str] = []
    threads = [
        threading.Thread(target=_tab, args=(expert, round_, barrier, work, handed, errors))
        for _ in range(TABS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    return handed


def test_tabs_asking_at_once_get_one_open_item_and_never_pass_the_cap(
    review_data,  # noqa: F811
    experts,  # noqa: F811
):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's; the PostgreSQL stage of CI runs this")
    benchmark, systems = review_data
    expert = experts[0]
    for trial in range(TRIALS):
        round_ = round_open(
            benchmark=benchmark,
            name=f"tabs-{trial}",
            systems=systems,
            experts=experts,
            fraction=0.6,
            max_items_per_expert=CAP,
        )
        mine = Assignment.objects.filter(expert=expert, item__round=round_)
        handed = _tabs(expert, round_, work=False)
        assert len(handed) == TABS and len(set(handed)) == 1, (trial, handed)
        assert mine.filter(status__in=OPEN).count() == 1
        _tabs(expert, round_, work=True)
        assert mine.count() == CAP, (trial, list(mine.values_list("item_id", "status")))
        assert not mine.filter(status__in=OPEN).exists()
