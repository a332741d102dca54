"""The parts of choosing a judge that need no judge run: cost per 1,000 responses, median
latency, the ranking, the cheapest passing judge, the paired difference and the chart."""

from decimal import Decimal

import pytest

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_rounds import round_open
from leaderboard.selection.chart import ChartJudge, cost_agreement_chart
from leaderboard.selection.choice import (
    Agreeing,
    Candidate,
    cheapest_passing,
    cost_per_thousand,
    median_latency,
    ranked,
    versus_best,
)
from leaderboard.selection.selectors.versions import selection_round
from tests.conftest import jsonl_bytes, lines, question


def test_cost_per_thousand_responses_and_its_reasons():
    cost = cost_per_thousand(
        prompt_tokens=10_000,
        completion_tokens=2_000,
        tasks=4,
        price_prompt_per_1k=Decimal("0.002"),
        price_completion_per_1k=Decimal("0.008"),
    )
    # (10 * 0.002 + 2 * 0.008) = 0.036 for 4 responses: 9.0 per 1,000.
    assert cost.value == pytest.approx(9.0)
    free = cost_per_thousand(
        prompt_tokens=10, completion_tokens=2, tasks=1,
        price_prompt_per_1k=Decimal(0), price_completion_per_1k=Decimal(0),
    )  # fmt: skip
    assert free.value is None and free.reason == "no_prices"
    unused = cost_per_thousand(
        prompt_tokens=0, completion_tokens=0, tasks=0,
        price_prompt_per_1k=Decimal(1), price_completion_per_1k=Decimal(1),
    )  # fmt: skip
    assert unused.value is None and unused.reason == "no_usage_recorded"


def test_median_latency_counts_only_recorded_calls():
    assert median_latency([0, 10, 30, 20, 0]).value == 20.0
    assert median_latency([0, 0]).reason == "no_latency_recorded"
    assert median_latency([]).reason == "no_latency_recorded"


def _c(label, agreement, kappa=0.5, passed=True, cost=1.0):
    return Candidate(key=hash(label), label=label, agreement=agreement, kappa=kappa,
                     passed=passed, cost=cost)  # fmt: skip


def test_ranking_best_first_undefined_last():
    order = ranked([_c("b", 0.8), _c("none", None), _c("a", 0.8, kappa=0.6), _c("c", 0.9)])
    assert [c.label for c in order] == ["c", "a", "b", "none"]


def test_the_cheapest_passing_judge_or_why_none():
    assert cheapest_passing([]) == (None, "no_judge_covers_round")
    assert cheapest_passing([_c("a", 0.5, passed=False)]) == (None, "no_judge_passes")
    assert cheapest_passing([_c("a", 0.9, cost=None)]) == (None, "no_passing_cost")
    failing = _c("x", 0.6, passed=False, cost=0.1)
    chosen, reason = cheapest_passing(
        [_c("dear", 0.95, cost=9.0), _c("cheap", 0.8, cost=1.0), failing]
    )
    assert chosen.label == "cheap" and reason is None
    # At equal cost, the better agreeing one.
    tie, _ = cheapest_passing([_c("p", 0.8, cost=1.0), _c("q", 0.9, cost=1.0)])
    assert tie.label == "q"


def test_versus_best_on_shared_units_only():
    best = {(1, c): Agreeing(True, "k1" if c < 3 else "k2") for c in range(1, 5)}
    other = {
        (1, 1): Agreeing(True, "k1"),
        (1, 2): Agreeing(False, "k1"),
        (1, 3): Agreeing(False, "k2"),
        (9, 9): Agreeing(True, "k9"),  # not judged by the best: left out
    }
    found = versus_best(best, other, resamples=100)
    assert found["units"] == 3
    assert (found["best_right_only"], found["this_right_only"]) == (2, 0)
    assert found["difference"]["value"] == pytest.approx(1 / 3 - 1)
    assert found["mcnemar_p"]["value"] == pytest.approx(0.5)
    nothing = versus_best(best, {}, resamples=100)
    assert nothing["difference"] == {"value": None, "reason": "no_paired_units"}
    assert nothing["difference_95"]["reason"] == "no_units"


def test_the_chart_places_points_inside_the_plot():
    assert cost_agreement_chart([], 0.75) is None
    chart = cost_agreement_chart(
        [
            ChartJudge("a", 7.7, 1.0, 0.89, 1.0, passed=True, cheapest=False),
            ChartJudge("b", 0.6, 0.81, 0.65, 0.91, passed=True, cheapest=True),
        ],
        0.75,
    )
    assert [t["text"] for t in chart["x_ticks"]] == ["0", "2", "4", "6", "8", "10"]
    assert chart["y_ticks"][0]["text"] == "50%" and chart["y_ticks"][-1]["text"] == "100%"
    for point in chart["points"]:
        assert chart["left"] <= point["cx"] <= chart["right"]
        assert chart["top"] <= point["y_high"] <= point["cy"] <= point["y_low"] <= chart["bottom"]
    assert chart["top"] < chart["threshold_y"] < chart["bottom"]
    assert [p["label"] for p in chart["points"]] == ["b", "a"]  # cheapest first


def test_a_price_left_at_0_for_tokens_used_is_unknown_not_free():
    half = cost_per_thousand(
        prompt_tokens=10_000, completion_tokens=2_000, tasks=4,
        price_prompt_per_1k=Decimal("0.002"), price_completion_per_1k=Decimal(0),
    )  # fmt: skip
    assert half.value is None and half.reason == "no_prices"
    # No completion tokens used: the missing completion price changes nothing.
    prompt_only = cost_per_thousand(
        prompt_tokens=10_000, completion_tokens=0, tasks=4,
        price_prompt_per_1k=Decimal("0.002"), price_completion_per_1k=Decimal(0),
    )  # fmt: skip
    assert prompt_only.value == pytest.approx(5.0)


def test_the_chart_places_judges_that_cost_nothing():
    judge = ChartJudge(
        label="local v1", cost=0.0, agreement=0.8, low=0.7, high=0.9, passed=True, cheapest=True
    )
    chart = cost_agreement_chart([judge], threshold=0.75)
    assert chart is not None and chart["points"][0]["cx"] == chart["left"]


@pytest.mark.django_db
def test_within_a_benchmark_a_round_id_wins_over_a_round_named_like_it():
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": "c1", "response": "嗯"}])),
        benchmark_slug="hb",
        system_name="Sys",
    )
    benchmark = Benchmark.objects.get(slug="hb")
    systems = list(System.objects.all())
    experts = [
        user_create_with_role(username=f"e{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    first = round_open(
        benchmark=benchmark, name="first", systems=systems, experts=experts, fraction=1.0
    )
    named_like = round_open(
        benchmark=benchmark, name=str(first.pk), systems=systems, experts=experts, fraction=1.0
    )
    # The agreement page links by id: ?round=<id> opens that round, not one named "<id>".
    assert selection_round(ref=str(first.pk), benchmark=benchmark) == first
    assert selection_round(ref=str(named_like.pk), benchmark=benchmark) == named_like
