"""Judge runs against the simulator over real HTTP."""

import json
import os

import pytest

from judging.models import JudgeAttempt, JudgeRun, JudgeTask, Verdict
from judging.services.lanes import run_here
from judging.services.runs import RunNotStartable, judge_run_start

pytestmark = pytest.mark.django_db(transaction=True)


def start(judged_benchmark, config, **kwargs) -> JudgeRun:
    benchmark, systems = judged_benchmark
    return judge_run_start(benchmark=benchmark, systems=systems, config=config, **kwargs)


def test_a_run_judges_every_response_once(judged_benchmark, sim_config, simulator):
    run = start(judged_benchmark, sim_config())
    assert run.tasks.count() == 8
    run_here(run_id=run.pk, lanes=4)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED
    assert set(run.tasks.values_list("status", flat=True)) == {"done"}
    assert Verdict.objects.filter(task__run=run).count() == 8 * 4
    attempt = JudgeAttempt.objects.filter(task__run=run).first()
    assert attempt.outcome == "ok" and attempt.prompt_tokens > 0
    assert json.loads(attempt.raw_output)["verdicts"]
    assert simulator.stats()["max_in_flight"] <= 4
    assert run.settings_snapshot["model"] == "concord-sim"


def test_lanes_shared_over_processes_judge_every_response_once(
    judged_benchmark, sim_config, simulator
):
    # Slow enough calls that the child (which takes a second or two to start, while this
    # process works with both lanes) gets work once this process hands it a lane.
    simulator.configure(latency_ms=2000)
    run = start(judged_benchmark, sim_config(max_concurrency=2))
    run_here(run_id=run.pk, lanes=2, processes=2)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED
    assert set(run.tasks.values_list("status", flat=True)) == {"done"}
    assert Verdict.objects.filter(task__run=run).count() == 8 * 4
    workers = set(JudgeAttempt.objects.filter(task__run=run).values_list("worker", flat=True))
    assert len(workers) == 2, workers  # this process and its child both made calls
    assert f":{os.getpid()}" in "".join(workers)
    assert simulator.stats()["max_in_flight"] <= 2


def test_rate_limits_and_malformed_replies_are_retried_never_guessed(
    judged_benchmark, sim_config, simulator
):
    simulator.configure(rate_429=0.3, rate_malformed=0.2, rate_wrong_count=0.1, retry_after=0)
    run = start(judged_benchmark, sim_config(max_attempts=10))
    run_here(run_id=run.pk, lanes=4)
    attempts = JudgeAttempt.objects.filter(task__run=run)
    outcomes = set(attempts.values_list("outcome", flat=True))
    assert {"rate_limited", "invalid"} & outcomes
    assert run.tasks.filter(status="done").count() == 8
    for task in run.tasks.all():
        assert task.verdicts.count() == 4  # exactly one verdict per criterion
    invalid = attempts.filter(outcome="invalid").first()
    if invalid:
        assert invalid.raw_output and invalid.error


def test_a_task_that_keeps_failing_is_marked_failed_with_its_reason(
    judged_benchmark, sim_config, simulator
):
    simulator.configure(rate_wrong_count=1.0)
    run = start(judged_benchmark, sim_config(max_attempts=2))
    run_here(run_id=run.pk, lanes=2)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED
    assert run.tasks.filter(status="failed").count() == 8
    task = run.tasks.first()
    assert "verdicts for 4 criteria" in task.last_error and "gave up after 2" in task.last_error
    assert not Verdict.objects.filter(task__run=run).exists()
    assert task.attempt_log.count() == 2


def test_identical_requests_are_reused_unless_fresh_calls_are_asked(
    judged_benchmark, sim_config, simulator
):
    config = sim_config()
    first = start(judged_benchmark, config)
    run_here(run_id=first.pk, lanes=2)
    calls = simulator.stats()["requests"]
    second = start(judged_benchmark, config)
    run_here(run_id=second.pk, lanes=2)
    assert simulator.stats()["requests"] == calls
    assert set(second.tasks.values_list("attempt_log__outcome", flat=True)) == {"cached"}
    assert Verdict.objects.filter(task__run=second).count() == 32
    fresh = start(judged_benchmark, config, fresh_calls=True)
    run_here(run_id=fresh.pk, lanes=2)
    assert simulator.stats()["requests"] == calls + 8


def test_a_missing_api_key_variable_refuses_the_run(judged_benchmark, sim_config, monkeypatch):
    monkeypatch.delenv("CONCORD_JUDGE_KEY_MISSING", raising=False)
    with pytest.raises(RunNotStartable, match="CONCORD_JUDGE_KEY_MISSING"):
        start(judged_benchmark, sim_config(api_key_env="CONCORD_JUDGE_KEY_MISSING"))
    assert not JudgeRun.objects.exists() and not JudgeTask.objects.exists()
