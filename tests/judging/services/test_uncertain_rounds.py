"""A review round sampled more where the judge is unsure: the uncertainty read from a second
judge's finished run, the chances recorded on every item, the draw reproduced by the seed,
and clear refusals when the runs cannot say how unsure the judge is."""

import pytest
from django.utils import translation

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, ReviewItem, ReviewRound
from annotation.review_sampling import probabilities_by_size
from annotation.services.benchmark_import import benchmark_import
from annotation.services.review_rounds import RoundInvalid, round_extend, round_open
from core.audit.models import AuditEvent
from judging.models import JudgeRun
from judging.selectors.uncertainty import response_uncertainty
from judging.services.judgments_import import judgments_import
from judging.services.uncertain_rounds import uncertain_round_open, uncertainty_probabilities
from tests.conftest import jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db

FIRST = {"c1": [1, 1, 1, 0], "c2": [1, 1, 1, 0], "c3": [1, 1, 1, 0], "c4": [1, 1, 1, 0]}
# The second judge differs on 0, 1, 2 and 4 of the 4 criteria.
SECOND = {"c1": [1, 1, 1, 0], "c2": [0, 1, 1, 0], "c3": [0, 0, 1, 0], "c4": [0, 0, 0, 1]}


def _import(judge: str, verdicts: dict) -> JudgeRun:
    rows = [{"question_id": q, "score_detail": d} for q, d in verdicts.items()]
    judgments_import(
        chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb", system_name="Alpha", judge_name=judge
    )
    return JudgeRun.objects.latest("pk")


@pytest.fixture
def two_judges(judged_benchmark):
    benchmark, systems = judged_benchmark
    alpha = [s for s in systems if s.name == "Alpha"]
    expert = user_create_with_role(username="u-expert", password="x-pass-123", role=EXPERT)
    return benchmark, alpha, expert, _import("J1", FIRST), _import("J2", SECOND)


def _response_of(benchmark, alpha) -> dict:
    from annotation.models import Response

    rows = Response.objects.filter(case__benchmark=benchmark, system__in=alpha)
    return {r.case.external_id: r.pk for r in rows.select_related("case")}


def test_a_second_judge_gives_the_share_of_criteria_they_disagree_on(two_judges):
    benchmark, alpha, _expert, first, second = two_judges
    response = _response_of(benchmark, alpha)
    scores = response_uncertainty(run=first, second=second)
    assert scores == {
        response["c1"]: 0.0,
        response["c2"]: 0.25,
        response["c3"]: 0.5,
        response["c4"]: 1.0,
    }
    # A single judge that is no ensemble says nothing about its doubt.
    assert response_uncertainty(run=first) == {}


def _open(two_judges, name="U", seed=11, fraction=0.5, **extra):
    benchmark, alpha, expert, first, second = two_judges
    return uncertain_round_open(
        benchmark=benchmark,
        systems=alpha,
        run=first,
        second=second,
        fraction=fraction,
        name=name,
        experts=[expert],
        raters_per_item=1,
        seed=seed,
        **extra,
    )


def test_the_round_records_each_chance_and_the_seed_reproduces_the_draw(two_judges):
    benchmark, alpha, _expert, first, second = two_judges
    response = _response_of(benchmark, alpha)
    chances = uncertainty_probabilities(
        benchmark=benchmark, systems=alpha, run=first, second=second, fraction=0.5
    )
    assert sum(chances.values()) == pytest.approx(2.0)
    # floor = mean(0, .25, .5, 1) = 0.4375: chances (0.4375, 0.6875, 0.9375, 1.4375) * c.
    assert chances == pytest.approx(
        probabilities_by_size(
            {response[q]: u for q, u in zip(FIRST, (0, 0.25, 0.5, 1.0), strict=True)},
            fraction=0.5,
        )
    )
    assert chances[response["c1"]] == pytest.approx(2 * 0.4375 / 3.5)
    assert chances[response["c4"]] == pytest.approx(2 * 1.4375 / 3.5)
    round_ = _open(two_judges)
    assert round_.sampling == ReviewRound.Sampling.UNCERTAINTY
    items = dict(
        ReviewItem.objects.filter(round=round_).values_list("response_id", "inclusion_probability")
    )
    assert items
    assert items == {pk: chances[pk] for pk in items}
    again = _open(two_judges, name="U again")
    assert set(again.items.values_list("response_id", flat=True)) == set(items)
    event = AuditEvent.objects.filter(details__round="U").latest("pk")
    assert event.details["sampling"] == "uncertainty"
    assert event.details["chances_from"] == {
        "judge_run": first.pk,
        "second_judge_run": second.pk,
        "floor_share": 1.0,
    }


def test_such_a_round_is_not_extended(two_judges):
    round_ = _open(two_judges)
    with translation.override("en"), pytest.raises(RoundInvalid, match="cannot be extended"):
        round_extend(round_=round_, fraction=0.9)


def test_runs_that_cannot_say_how_unsure_the_judge_is_are_refused(two_judges):
    benchmark, alpha, expert, first, second = two_judges
    options = dict(name="X", experts=[expert], raters_per_item=1)
    with translation.override("en"):
        with pytest.raises(RoundInvalid, match="no ensemble"):
            uncertain_round_open(benchmark=benchmark, systems=alpha, run=first, **options)
        with pytest.raises(RoundInvalid, match="two different"):
            uncertain_round_open(
                benchmark=benchmark, systems=alpha, run=first, second=first, **options
            )
        for floor in (0, -1, float("nan"), 1000):
            with pytest.raises(RoundInvalid, match="The floor must be more than 0"):
                uncertain_round_open(
                    benchmark=benchmark,
                    systems=alpha,
                    run=first,
                    second=second,
                    floor_share=floor,
                    **options,
                )
        JudgeRun.objects.filter(pk=second.pk).update(status=JudgeRun.Status.RUNNING)
        second.refresh_from_db()
        with pytest.raises(RoundInvalid, match="has not finished"):
            uncertain_round_open(
                benchmark=benchmark, systems=alpha, run=first, second=second, **options
            )
        benchmark_import(chunks=lines(jsonl_bytes([question("z1")])), benchmark_slug="other")
        other = Benchmark.objects.get(slug="other")
        with pytest.raises(RoundInvalid, match="not on benchmark “other”"):
            uncertain_round_open(benchmark=other, systems=alpha, run=first, **options)
    assert not ReviewRound.objects.exists()


def test_annotation_takes_the_chances_only_whole_and_only_with_the_design(two_judges):
    benchmark, alpha, expert, first, second = two_judges
    chances = uncertainty_probabilities(
        benchmark=benchmark, systems=alpha, run=first, second=second, fraction=0.5
    )
    options = dict(benchmark=benchmark, systems=alpha, experts=[expert], raters_per_item=1)
    with translation.override("en"):
        with pytest.raises(RoundInvalid, match="only with it"):
            round_open(name="A", sampling="uncertainty", **options)
        with pytest.raises(RoundInvalid, match="only with it"):
            round_open(name="A", probabilities=chances, **options)
        partial = dict(list(chances.items())[1:])
        with pytest.raises(RoundInvalid, match="every response"):
            round_open(name="A", sampling="uncertainty", probabilities=partial, **options)
        zero = dict.fromkeys(chances, 0.0)
        with pytest.raises(RoundInvalid, match="more than 0"):
            round_open(name="A", sampling="uncertainty", probabilities=zero, **options)
    assert not ReviewRound.objects.exists()
