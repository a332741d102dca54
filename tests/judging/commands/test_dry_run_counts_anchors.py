"""A run of some systems also judges the benchmark's drift anchors, so its estimate
(`judge --dry-run`) counts their calls, and never as answers reused: anchors are always
asked anew. Against the simulator over HTTP."""

import json

import pytest
from django.core.management import call_command

from judging.models import JudgeRun
from tests.judging.anchors import anchors_on

pytestmark = pytest.mark.django_db(transaction=True)


def _judge(simulator, capsys, *extra) -> dict:
    capsys.readouterr()
    call_command(
        "judge", "--benchmark", "hb", "--system", "Alpha",
        "--base-url", simulator.base_url, "--model", "concord-sim", "--json", *extra,
    )  # fmt: skip
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_the_estimate_of_a_run_counts_the_anchor_calls(judged_benchmark, simulator, capsys):
    benchmark, (_alpha, beta) = judged_benchmark
    anchors_on(benchmark, [beta])
    estimate = _judge(simulator, capsys, "--dry-run", "--price-in", "2", "--price-out", "8")
    assert not JudgeRun.objects.exists()
    # Alpha's four responses, and Beta's four anchors.
    assert (estimate["tasks"], estimate["anchor_tasks"]) == (8, 4)
    assert (estimate["cached"], estimate["calls"]) == (0, 8)
    summary = _judge(simulator, capsys, "--price-in", "2", "--price-out", "8")
    run = JudgeRun.objects.get()
    assert run.tasks.count() == 8 and run.tasks.requested().count() == 4
    real = summary["prompt_tokens"] + summary["completion_tokens"]
    guessed = estimate["prompt_tokens"] + estimate["completion_tokens"]
    assert abs(guessed - real) <= 0.1 * real, (estimate, summary)

    # Again: Alpha's answers are reused, the anchors are asked anew; so does the run.
    again = _judge(simulator, capsys, "--dry-run")
    assert (again["tasks"], again["anchor_tasks"], again["cached"], again["calls"]) == (8, 4, 4, 4)
    summary = _judge(simulator, capsys)
    assert summary["cached"] == 4


def test_the_estimate_text_names_the_anchors_added(judged_benchmark, simulator, capsys):
    benchmark, (_alpha, beta) = judged_benchmark
    anchors_on(benchmark, [beta], responses=3)
    capsys.readouterr()
    call_command(
        "judge", "--benchmark", "hb", "--system", "Alpha",
        "--base-url", simulator.base_url, "--model", "concord-sim", "--dry-run",
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "7 tasks (of them 3 drift anchors added" in out and "7 calls to make" in out
