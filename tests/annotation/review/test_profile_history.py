"""An expert's profile shows their agreement with the other raters in every round they
rated in, with the same numbers as each round's page, in a fixed number of queries however
many rounds there are."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.selectors.people import expert_record
from annotation.selectors.review_dashboard import round_agreement
from annotation.services.review_rounds import round_open
from tests.annotation.review.test_coordinator_pages import complete_round

pytestmark = pytest.mark.django_db

# exp1 agrees with the others on 2 of 4 criteria of every item; exp2 and exp3 agree.
PATTERNS = [[True, True, False, False], [True, False, True, False], [True, False, True, False]]


def _rounds(review_data, experts, count, first=0):
    benchmark, systems = review_data
    rounds = []
    for n in range(first, first + count):
        round_ = round_open(
            benchmark=benchmark,
            name=f"History {n}",
            systems=systems,
            experts=experts[:3],
            fraction=0.1,
            seed=100 + n,
        )
        complete_round(round_, experts[:3], PATTERNS)
        rounds.append(round_)
    return rounds


def _queries(expert) -> int:
    with CaptureQueriesContext(connection) as captured:
        expert_record(user=expert)
    return len(captured)


def test_the_profile_agreement_matches_each_round_in_bounded_queries(review_data, experts):
    rounds = _rounds(review_data, experts, 2)
    record = expert_record(user=experts[0])
    by_round = {r.round.pk: r.agreement for r in record.rounds}
    for round_ in rounds:
        assert by_round[round_.pk] == round_agreement(round_=round_)[experts[0].pk] == 0.5
    assert expert_record(user=experts[1]).rounds[0].agreement == 1.0
    few = _queries(experts[0])
    _rounds(review_data, experts, 3, first=2)
    assert _queries(experts[0]) == few
