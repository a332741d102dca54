"""A run's cost counts every call: the structured-output probe made as it starts, and calls
that timed out (the endpoint may have processed them), whose prompt tokens are estimated
from the request and marked as estimated; `calls` counts every attempt."""

import contextlib
import json

import pytest
from django.core.management import call_command
from django.db.models import Sum

from judging.models import JudgeAttempt, JudgeTask

pytestmark = pytest.mark.django_db(transaction=True)


def _judge(simulator, capsys, *extra) -> dict:
    capsys.readouterr()
    with contextlib.suppress(SystemExit):  # tasks failed: the summary says so
        call_command(
            "judge", "--benchmark", "hb", "--system", "Alpha", "--system", "Beta",
            "--base-url", simulator.base_url, "--model", "concord-sim", "--json", *extra,
        )  # fmt: skip
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_the_probe_is_part_of_the_run_cost(judged_benchmark, simulator, capsys):
    summary = _judge(simulator, capsys)
    assert simulator.stats()["requests"] == summary["calls"] == summary["tasks"] + 1
    tasks = JudgeTask.objects.aggregate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"))
    assert summary["prompt_tokens"] > tasks["p"] and summary["completion_tokens"] > tasks["c"]
    assert summary["estimated_prompt_tokens"] == 0


def test_timed_out_calls_are_counted_with_estimated_tokens(judged_benchmark, simulator, capsys):
    simulator.configure(latency_ms=3000)
    summary = _judge(simulator, capsys, "--timeout", "0.5", "--max-attempts", "1")
    assert summary["failed"] == summary["tasks"] == 8
    assert summary["calls"] == 8 + 1  # the eight attempts and the probe, all timed out
    attempts = JudgeAttempt.objects.all()
    assert {a.outcome for a in attempts} == {JudgeAttempt.Outcome.TIMEOUT}
    assert all(a.tokens_estimated and a.prompt_tokens > 0 for a in attempts)
    assert summary["prompt_tokens"] == summary["estimated_prompt_tokens"] > 0
