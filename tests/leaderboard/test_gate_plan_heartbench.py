"""Planning a round on a benchmark shaped like HeartBench: its real rubric sizes (4 to 23
criteria per case), two systems' responses (592), the default design effect."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from tests.conftest import jsonl_bytes, lines, question
from tests.leaderboard.test_stats_sequential import HEARTBENCH_SIZES

pytestmark = pytest.mark.django_db

DIMENSIONS = ["情绪感知", "好奇心", "温暖", "言语表达"]


@pytest.fixture
def heartbench_shaped():
    rows, number = [], 0
    for size, cases in HEARTBENCH_SIZES.items():
        for _ in range(cases):
            number += 1
            rubric = [
                {"dimension": DIMENSIONS[i % 4], "score": 3, "content": f"标准 {number}-{i}"}
                for i in range(size - 1)
            ] + [{"dimension": "其他", "score": None, "content": "以用户的身份说话"}]
            rows.append(question(f"q{number:03d}", rubric=rubric))
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="hbs")
    for system in ("甲", "乙"):
        answers = [{"question_id": row["question_id"], "response": "嗯"} for row in rows]
        responses_import(
            chunks=lines(jsonl_bytes(answers)), benchmark_slug="hbs", system_name=system
        )


def _plan(*args) -> dict:
    out = StringIO()
    call_command("gate_plan", "--benchmark", "hbs", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_at_085_the_plan_uses_the_real_rubric_sizes_and_the_default_design_effect(
    heartbench_shaped,
):
    plan = _plan("--expected", "0.85", "--threshold", "0.75")
    assert plan["responses_available"] == 592
    assert plan["criteria_per_item"] == {"mean": pytest.approx(3114 / 296), "min": 4, "max": 23}
    # No pilot: the stated default, an intraclass correlation of 0.1 within a response.
    assert plan["design_effect_source"] == "default" and plan["icc"] == 0.1
    assert plan["design_effect"] == pytest.approx(1 + (3114 / 296 - 1) * 0.1, abs=1e-3)
    fixed, median = plan["items_fixed"], plan["items_sequential_median"]
    # The fixed lower-bound rule at the design effect needs about 25 items. The sequential
    # rule cannot bet more than 0.95 / (0.75 x 23 criteria) per unit of excess, so its
    # median is about 60 items: 2.4 times, not the 1.25 times aimed at (see the docs).
    assert 20 <= fixed <= 30
    assert median <= 2.5 * fixed
    assert plan["items_sequential_median"] <= plan["items_sequential_p90"] <= 90
    assert plan["likely_decision"] == "pass" and plan["sequential_shares"]["pass"] >= 0.99
    assert plan["capped"] is False and plan["warnings"] == []
    # Items as the new-round form's sampling fraction, and as ratings (one expert's
    # verdicts on one item) by the default three raters.
    assert plan["sampling_fraction_fixed"] == pytest.approx(fixed / 592, abs=1e-4)
    assert plan["ratings_fixed"] == 3 * fixed
    # No item has a recorded time on this benchmark: hours are undefined, with the reason.
    assert plan["expert_hours_fixed"] is None and plan["expert_hours_reason"] == "no_item_times"


def test_at_the_threshold_it_rarely_passes_and_caps_at_the_responses_available(
    heartbench_shaped,
):
    plan = _plan("--expected", "0.75", "--threshold", "0.75")
    assert plan["items_fixed"] is None
    # Simulated type-I error of the sequential rule at exactly the threshold.
    assert plan["sequential_shares"]["pass"] <= plan["alpha"]
    assert plan["capped"] is True and plan["sequential_horizon"] == 592
    assert plan["items_sequential_p90"] <= 592
    assert plan["likely_decision"] == "continue"
    assert any("592" in warning for warning in plan["warnings"])


def test_a_judge_expected_below_the_threshold_is_likely_to_fail(heartbench_shaped):
    plan = _plan("--expected", "0.70", "--threshold", "0.75")
    assert plan["likely_decision"] == "fail"
    assert plan["sequential_shares"]["fail"] > 0.5
    # It may need more items than the benchmark has: the plan says it stops there.
    assert plan["capped"] is True
    assert plan["warnings"] == [
        "Only 592 responses can be reviewed: the simulated rounds stop there."
    ]
