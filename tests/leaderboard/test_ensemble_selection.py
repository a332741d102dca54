"""An ensemble judge in judge selection, like any other judge: its agreement, its cost from
every member's calls and the latency of a judgment (its members' calls together)."""

import statistics
from collections import defaultdict
from decimal import Decimal

import pytest

from judging.models import JudgeAttempt
from judging.services.ensemble_settings import ensemble_version_save, panel_version_save
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start
from leaderboard.selection.selectors.versions import judge_selection
from tests.judging.conftest import judged_benchmark, sim_config, simulator  # noqa: F401
from tests.leaderboard.test_judge_selection import PRICES, judged_round  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_five_sample_judge_is_selected_on_all_its_calls(
    judged_round,  # noqa: F811
    sim_config,  # noqa: F811
):
    round_, _runs = judged_round
    price_in, price_out = PRICES["small"]
    base = sim_config(
        name="sc",
        model="sim-sc",
        temperature=0.7,
        seed=3,
        price_prompt_per_1k=price_in,
        price_completion_per_1k=price_out,
    ).current_version
    five = ensemble_version_save(base=base, samples=5)
    run = judge_run_start(benchmark=round_.benchmark, systems=[], version=five, round_=round_)
    run_here(run_id=run.pk, lanes=2)
    result = judge_selection(round_=round_, resamples=100)
    row = next(r for r in result["judges"] if r["label"] == "sc v2")
    assert row["units"] == 32 and row["agreement"]["value"] is not None
    calls = JudgeAttempt.objects.filter(task__run=run)
    assert row["usage"]["calls"] == 40 == calls.count() and row["usage"]["tasks"] == 8
    prompt = sum(calls.values_list("prompt_tokens", flat=True))
    completion = sum(calls.values_list("completion_tokens", flat=True))
    assert row["usage"]["prompt_tokens"] == prompt
    per_response = (prompt * price_in + completion * price_out) / Decimal(1000) / 8
    assert row["cost_per_1000"]["value"] == pytest.approx(float(per_response * 1000))
    by_task = defaultdict(int)
    for task, latency in calls.values_list("task_id", "latency_ms"):
        by_task[task] += latency
    assert row["median_latency_ms"]["value"] == statistics.median(by_task.values())


def test_a_panel_is_priced_by_each_members_configuration(
    judged_round,  # noqa: F811
    sim_config,  # noqa: F811
):
    round_, _runs = judged_round
    members = [
        sim_config(
            name=f"p-{name}",
            model=f"sim-{name}",
            temperature=0.5,
            price_prompt_per_1k=PRICES[name][0],
            price_completion_per_1k=PRICES[name][1],
        ).current_version
        for name in ("large", "small")
    ] + [sim_config(name="third", model="sim-third", temperature=0.5).current_version]
    panel = panel_version_save(name="panel", members=members[:2])
    run = judge_run_start(benchmark=round_.benchmark, systems=[], version=panel, round_=round_)
    run_here(run_id=run.pk, lanes=2)
    judges = {r["label"]: r for r in judge_selection(round_=round_, resamples=100)["judges"]}
    expected = Decimal(0)
    for number, name in ((1, "large"), (2, "small")):
        calls = JudgeAttempt.objects.filter(task__run=run, member=number)
        price_in, price_out = PRICES[name]
        expected += (
            sum(calls.values_list("prompt_tokens", flat=True)) * price_in
            + sum(calls.values_list("completion_tokens", flat=True)) * price_out
        )
    row = judges["panel v1"]
    assert row["usage"]["calls"] == 16
    assert row["cost_per_1000"]["value"] == pytest.approx(float(expected / 1000 / 8 * 1000))
    # A member without prices leaves the panel's cost undefined, never a partial sum.
    unpriced = panel_version_save(name="unpriced", members=[members[0], members[2]])
    run = judge_run_start(benchmark=round_.benchmark, systems=[], version=unpriced, round_=round_)
    run_here(run_id=run.pk, lanes=2)
    judges = {r["label"]: r for r in judge_selection(round_=round_, resamples=100)["judges"]}
    assert judges["unpriced v1"]["cost_per_1000"] == {"value": None, "reason": "no_prices"}
