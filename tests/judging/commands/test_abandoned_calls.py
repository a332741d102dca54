"""Calls abandoned mid-flight (a second Ctrl-C, a killed process, a cancelled run) count in
the run's calls and cost, their prompt tokens estimated from the request, and a bundle of
the run records them; tasks claimed but never called do not count."""

import os
import signal
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from judging.management.commands._watch import summary_of
from judging.models import JudgeAttempt, JudgeLane, JudgeRun, JudgeTask
from judging.services.claims import tasks_claim
from judging.services.run_control import judge_run_cancel
from leaderboard.exports.bundles.calls import abandoned_calls
from tests.judging.commands.test_interrupt_and_resume import _interrupt, _judge, _stop
from tests.judging.workers import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _two_calls_in_flight(simulator, process) -> None:
    wait_for(lambda: simulator.stats()["in_flight"] == 2, timeout=60, message="two calls in flight")
    # The calls' start is recorded by the lanes' writer, a moment after they are sent.
    wait_for(
        lambda: JudgeTask.objects.filter(call_number__gt=0).count() == 2,
        timeout=10,
        message="the two calls' start recorded",
    )


def _assert_two_abandoned(run: JudgeRun, simulator) -> None:
    attempts = JudgeAttempt.objects.filter(task__run=run)
    assert list(attempts.values_list("outcome", flat=True)) == ["abandoned", "abandoned"]
    assert all(a.tokens_estimated and a.prompt_tokens > 0 for a in attempts)
    assert all(a.completion_tokens == 0 for a in attempts)
    summary = summary_of(run, time.perf_counter())
    # The output probe's call and the two abandoned ones: every request the endpoint got.
    assert summary["calls"] == 3 == simulator.stats()["requests"]
    abandoned_tokens = sum(a.prompt_tokens for a in attempts)
    assert summary["estimated_prompt_tokens"] >= abandoned_tokens
    probe = run.settings_snapshot.get("probe_usage") or {}
    assert summary["prompt_tokens"] == abandoned_tokens + probe.get("prompt_tokens", 0)
    # Tasks claimed but never called are not counted: only two tasks carry tokens.
    assert JudgeTask.objects.filter(run=run, prompt_tokens__gt=0).count() == 2


def test_a_second_ctrl_c_counts_the_abandoned_calls(judged_benchmark, simulator):
    simulator.configure(latency_ms=20000, latency_after=1)  # the probe answered at once
    process = _judge(simulator, "--timeout", "60")
    try:
        _two_calls_in_flight(simulator, process)
        _interrupt(process)
        time.sleep(0.5)
        _interrupt(process)
        process.communicate(timeout=5)
    finally:
        _stop(process)
    assert process.returncode == 130
    run = JudgeRun.objects.get()
    assert run.status == "interrupted"
    assert not JudgeTask.objects.filter(run=run, status="running").exists()
    _assert_two_abandoned(run, simulator)
    # Abandoned at the user's word, they use up none of the tasks' retry budget.
    called = JudgeTask.objects.filter(run=run, prompt_tokens__gt=0)
    assert all(task.attempts_counted == 0 for task in called)


def test_a_killed_process_leaves_its_calls_counted_when_their_leases_are_taken_back(
    judged_benchmark, simulator
):
    simulator.configure(latency_ms=20000, latency_after=1)  # the probe answered at once
    process = _judge(simulator, "--timeout", "60")
    try:
        _two_calls_in_flight(simulator, process)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    finally:
        _stop(process)
    run = JudgeRun.objects.get()
    held = JudgeTask.objects.filter(run=run, status="running")
    assert held.count() > 2  # the two called, and others claimed but waiting for a lane
    # Their leases run out (the time it takes, passed at once).
    held.update(lease_until=timezone.now() - timedelta(seconds=1))
    JudgeLane.objects.filter(run=run).update(expires=timezone.now() - timedelta(seconds=1))
    claimed = tasks_claim(run=run, token="next", limit=100)
    assert isinstance(claimed, list) and len(claimed) == 8
    _assert_two_abandoned(run, simulator)
    numbers = JudgeAttempt.objects.filter(task__run=run).values_list("task", "number")
    for task_id, number in numbers:
        assert JudgeTask.objects.get(pk=task_id).attempts == number + 1  # the next attempt


def test_a_run_cancelled_with_calls_in_flight_counts_them_and_its_bundle_records_them(
    judged_benchmark, simulator
):
    simulator.configure(latency_ms=20000, latency_after=1)  # the probe answered at once
    process = _judge(simulator, "--timeout", "60")
    try:
        _two_calls_in_flight(simulator, process)
        run = JudgeRun.objects.get()
        judge_run_cancel(run=run)
    finally:
        _stop(process)
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert not JudgeTask.objects.filter(run=run, status="running").exists()
    _assert_two_abandoned(run, simulator)
    rows = abandoned_calls([run.pk])
    called = JudgeTask.objects.filter(run=run, prompt_tokens__gt=0).select_related("case", "system")
    assert sorted((r["question_id"], r["system"]) for r in rows) == sorted(
        (task.case.external_id, task.system.name) for task in called
    )
    assert all(r["run"] == run.pk for r in rows)
    assert all(r["outcome"] == "abandoned" and r["task_status"] == "cancelled" for r in rows)
    assert all(r["prompt_tokens"] > 0 and r["tokens_estimated"] for r in rows)
