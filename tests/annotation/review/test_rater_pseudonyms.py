"""Reports and exports name raters by a pseudonym drawn at random once per benchmark: the
same person keeps it in every round of the benchmark, also after leaving a round, and
nothing about it follows from their account (not its id, not the order accounts were made)."""

import pytest

from annotation.models import Benchmark, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit
from leaderboard.exports.tables import votes_rows
from leaderboard.report.selectors.agreement import rater_pseudonyms
from tests.conftest import jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db

RATER_COLUMN = 7  # of votes_rows


def rate_one(expert, round_):
    assignment = assignment_next(expert=expert, round_=round_)
    criteria = assignment.item.rubric_version.criteria.order_by("position")
    assignment_submit(
        assignment=assignment,
        votes=[VoteInput(c.pk, True) for c in criteria],
        comment="",
        active_seconds=1,
        base_revision=0,
    )
    return assignment


def test_pseudonyms_are_not_numbered_in_account_order(review_round, experts):
    names = rater_pseudonyms(round_=review_round)
    pool = sorted(e.pk for e in experts[:3])
    assert sorted(names) == pool
    assert len(set(names.values())) == 3
    by_id_order = {pk: f"E{i:02d}" for i, pk in enumerate(pool, start=1)}
    assert names != by_id_order
    assert not {f"E{pk}" for pk in pool} & set(names.values())
    assert rater_pseudonyms(round_=review_round) == names  # stable once drawn


def test_a_rater_keeps_their_pseudonym_across_the_benchmarks_rounds(review_data, experts):
    benchmark, systems = review_data
    first = round_open(benchmark=benchmark, name="one", systems=systems, experts=experts[:3])
    second = round_open(benchmark=benchmark, name="two", systems=systems, experts=experts[1:])
    one, two = rater_pseudonyms(round_=first), rater_pseudonyms(round_=second)
    for expert in experts[1:3]:
        assert one[expert.pk] == two[expert.pk]
    assert two[experts[3].pk] not in one.values()


def test_each_benchmark_draws_its_own_pseudonyms(review_data, experts):
    benchmark, systems = review_data
    first = round_open(benchmark=benchmark, name="one", systems=systems, experts=experts[:3])
    benchmark_import(chunks=lines(jsonl_bytes([question("x1")])), benchmark_slug="other")
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": "x1", "response": "嗯"}])),
        benchmark_slug="other",
        system_name="OtherSystem",
    )
    second = round_open(
        benchmark=Benchmark.objects.get(slug="other"),
        name="elsewhere",
        systems=list(System.objects.filter(name="OtherSystem")),
        experts=experts[:3],
        fraction=1.0,
    )
    assert rater_pseudonyms(round_=first) != rater_pseudonyms(round_=second)


def test_an_expert_removed_from_the_round_keeps_their_pseudonym(review_round, experts):
    assignment = rate_one(experts[0], review_round)
    before = rater_pseudonyms(round_=review_round)[experts[0].pk]
    review_round.experts.remove(experts[0])
    names = rater_pseudonyms(round_=review_round)
    assert names[experts[0].pk] == before
    raters = {row[RATER_COLUMN] for row in votes_rows(round_=review_round)}
    assert raters == {before}
    assert f"E{experts[0].pk}" not in raters
    assert assignment.item.round_id == review_round.pk
