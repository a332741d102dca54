"""Ctrl-C on `manage.py judge`, in a real process against the simulator, then `runs resume`."""

import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from django.core.management import call_command

from judging.models import JudgeAttempt, JudgeLane, JudgeRun, JudgeTask, OutputProbe, Verdict
from tests.judging.workers import ROOT, database_url, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def _judge(simulator, *extra: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url(),
    }
    systems = ["--system", "Alpha", "--system", "Beta"]
    provider = ["--base-url", simulator.base_url, "--model", "concord-sim", "--concurrency", "2"]
    return subprocess.Popen(
        [sys.executable, "manage.py", "judge", "--benchmark", "hb", *systems, *provider, *extra],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's Ctrl-C reaches it
    )


def _done() -> int:
    return JudgeTask.objects.filter(status="done").count()


def _interrupt(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGINT)


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def test_one_ctrl_c_records_the_calls_in_flight_and_says_how_to_resume(judged_benchmark, simulator):
    simulator.configure(latency_ms=1500, latency_after=1)  # the probe answered at once
    process = _judge(simulator)
    try:
        wait_for(
            lambda: _done() >= 2 and simulator.stats()["in_flight"] == 2,
            timeout=60,
            message="two tasks judged and two calls in flight",
        )
        _interrupt(process)
        out, err = process.communicate(timeout=30)
    finally:
        _stop(process)
    assert process.returncode in (0, 130), err
    assert "Traceback" not in out + err and "KeyboardInterrupt" not in out + err
    run = JudgeRun.objects.get()
    assert run.status == "interrupted"
    assert f"python manage.py runs resume {run.pk}" in out
    # The two calls in flight were answered and recorded; nothing was called after them
    # (the one call before the tasks' asked whether the endpoint takes structured output).
    attempts = JudgeAttempt.objects.filter(task__run=run)
    assert attempts.count() + 1 == simulator.stats()["requests"]
    assert OutputProbe.objects.filter(judge_version=run.judge_version).count() == 1
    assert set(attempts.values_list("outcome", flat=True)) == {"ok"}
    assert 4 <= _done() < 8
    assert not JudgeTask.objects.filter(run=run, status="running").exists()
    assert not JudgeLane.objects.filter(run=run).exclude(token="").exists()

    simulator.configure(latency_ms=0)
    call_command("runs", "resume", str(run.pk))
    run.refresh_from_db()
    assert run.status == "finished"
    assert Counter(JudgeTask.objects.filter(run=run).values_list("status", flat=True)) == {
        "done": 8
    }
    per_task = Counter(Verdict.objects.filter(task__run=run).values_list("task", flat=True))
    assert sorted(per_task.values()) == [4] * 8  # every verdict exactly once
    assert JudgeAttempt.objects.filter(task__run=run).count() == 8


def test_a_second_ctrl_c_stops_at_once_with_the_leases_given_back(judged_benchmark, simulator):
    simulator.configure(latency_ms=20000, latency_after=1)  # the probe answered at once
    process = _judge(simulator, "--timeout", "60")
    try:
        wait_for(
            lambda: simulator.stats()["in_flight"] == 2, timeout=60, message="two calls in flight"
        )
        _interrupt(process)
        time.sleep(0.5)
        _interrupt(process)
        out, err = process.communicate(timeout=5)
    finally:
        _stop(process)
    assert process.returncode == 130, err
    assert "Traceback" not in out + err and "KeyboardInterrupt" not in out + err
    run = JudgeRun.objects.get()
    assert run.status == "interrupted"
    assert f"python manage.py runs resume {run.pk}" in err
    assert not JudgeTask.objects.filter(run=run, status="running").exists()
    assert not JudgeLane.objects.filter(run=run).exclude(token="").exists()
    # The abandoned calls are logged (tests/judging/commands/test_abandoned_calls.py) but
    # use up none of the tasks' retry budget.
    assert {task.attempts_counted for task in JudgeTask.objects.filter(run=run)} == {0}
