"""A reply of HTTP 200 that is not a chat completion (an HTML sign-in page, JSON of some
other kind, an empty body, plain text) is a failed attempt with its cause, counted against
`max_attempts`: the run ends, nothing is called again and again. Against the simulator over
real HTTP."""

from datetime import timedelta

import pytest
from django.utils import timezone

from judging.models import JudgeAttempt, JudgeRun, JudgeTask, PromptTemplate, Verdict
from judging.services import claims
from judging.services.lane_pool import pool_run
from judging.services.runs import generation_run_start, judge_run_start

pytestmark = pytest.mark.django_db(transaction=True)

# Bounds the run if it never ends (the defect: the task was leased again and again); a run
# that works ends long before. Its lease is the timeout plus 10 s, so a re-lease happens
# well within this bound.
BOUND_SECONDS = 25
# The one call asking whether the endpoint takes structured output, made before a judge
# version's first run (services/output_probe.py); generation runs make none.
PROBE = 1

CAUSES = {
    "html": "HTTP 200 with text/html",
    "not_completion": "JSON that is not a chat completion",
    "empty": "HTTP 200 with an empty body",
    "plain_text": "HTTP 200 with text/plain",
}


@pytest.mark.parametrize("fault", list(CAUSES))
def test_a_reply_that_is_no_chat_completion_fails_the_task_once(
    judged_benchmark, sim_config, simulator, fault
):
    simulator.configure(**{f"rate_{fault}": 1.0})
    benchmark, systems = judged_benchmark
    config = sim_config(max_attempts=1, timeout_seconds=1, max_concurrency=2)
    run = judge_run_start(benchmark=benchmark, systems=systems, config=config)

    assert pool_run(run_id=run.pk, lanes=2, max_seconds=BOUND_SECONDS) == "finished"

    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED
    assert run.tasks.filter(status=JudgeTask.Status.FAILED).count() == 8
    assert simulator.stats()["requests"] == PROBE + 8  # one call per task, never leased again
    assert not Verdict.objects.filter(task__run=run).exists()
    for task in run.tasks.all():
        assert task.attempts == 1
        assert CAUSES[fault] in task.last_error, task.last_error
        assert "gave up after 1 attempts" in task.last_error
        (attempt,) = task.attempt_log.all()
        assert attempt.outcome == JudgeAttempt.Outcome.INVALID
        assert attempt.http_status == 200
        assert CAUSES[fault] in attempt.error
    if fault == "html":  # the body is kept for diagnosis, and the cause hints at the URL
        assert "Sign in" in attempt.raw_output
        assert "/v1" in attempt.error


def test_a_non_completion_is_retried_up_to_max_attempts(judged_benchmark, sim_config, simulator):
    simulator.configure(rate_html=1.0)
    benchmark, systems = judged_benchmark
    config = sim_config(max_attempts=3, timeout_seconds=1, max_concurrency=2)
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=config)
    assert pool_run(run_id=run.pk, lanes=2, max_seconds=BOUND_SECONDS) == "finished"
    assert simulator.stats()["requests"] == PROBE + 4 * 3
    assert run.tasks.filter(status="failed", attempts=3).count() == 4
    assert "gave up after 3 attempts" in run.tasks.first().last_error


def test_a_generation_run_fails_its_task_on_an_html_reply(judged_benchmark, sim_config, simulator):
    simulator.configure(rate_html=1.0)
    benchmark, _ = judged_benchmark
    config = sim_config(
        prompt=PromptTemplate.objects.get(name="generate-zh", version=1), max_attempts=1
    )
    run = generation_run_start(benchmark=benchmark, system_name="Gamma", config=config)
    assert pool_run(run_id=run.pk, lanes=2, max_seconds=BOUND_SECONDS) == "finished"
    assert run.tasks.filter(status="failed").count() == 4
    assert simulator.stats()["requests"] == 4
    assert "text/html" in run.tasks.first().last_error


def test_an_attempt_whose_lane_vanished_is_not_made_again_past_max_attempts(
    judged_benchmark, sim_config, simulator
):
    """A lane that died mid-attempt leaves its task leased with no outcome. Once the lease
    runs out, a task with no attempts left is failed with that cause, not called again."""
    benchmark, systems = judged_benchmark
    config = sim_config(max_attempts=1, timeout_seconds=1, max_concurrency=2)
    run = judge_run_start(benchmark=benchmark, systems=systems, config=config)
    vanished = claims.tasks_claim(run=run, token="a-lane-that-died", limit=3)
    assert len(vanished) == 3
    JudgeTask.objects.filter(pk__in=[t.pk for t in vanished]).update(
        lease_until=timezone.now() - timedelta(seconds=1)
    )

    assert pool_run(run_id=run.pk, lanes=2, max_seconds=BOUND_SECONDS) == "finished"

    assert simulator.stats()["requests"] == PROBE + 5  # only the tasks never attempted
    for task in JudgeTask.objects.filter(pk__in=[t.pk for t in vanished]):
        assert task.status == "failed" and task.attempts == 1
        assert "attempt 1: no outcome was recorded" in task.last_error
        assert "gave up after 1 attempts" in task.last_error
    assert run.tasks.filter(status="done").count() == 5
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED


def test_an_attempt_that_breaks_off_in_our_own_code_is_a_failed_attempt(
    judged_benchmark, sim_config, simulator, monkeypatch
):
    """Fault injection: whatever raises inside an attempt (here the reply's check) ends it
    as a failed attempt with that cause, counted like any other; it is not leased again."""

    def broken(content, *, expected, numbers=None):
        raise RuntimeError("the check itself failed")

    monkeypatch.setattr("judging.services.execution.parse_reply", broken)
    benchmark, systems = judged_benchmark
    config = sim_config(max_attempts=2, timeout_seconds=1, max_concurrency=2)
    run = judge_run_start(benchmark=benchmark, systems=systems, config=config)
    assert pool_run(run_id=run.pk, lanes=2, max_seconds=BOUND_SECONDS) == "finished"
    assert simulator.stats()["requests"] == PROBE + 8 * 2
    assert run.tasks.filter(status="failed", attempts=2).count() == 8
    task = run.tasks.first()
    assert "broke off (RuntimeError: the check itself failed)" in task.last_error
    assert task.attempt_log.count() == 2
