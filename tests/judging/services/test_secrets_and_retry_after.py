"""The API key never leaves its environment variable; Retry-After is honoured."""

import logging
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from judging.models import JudgeAttempt, JudgeRun
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "sk-concord-test-RecognisableKey-0123456789abcdef"


def test_the_api_key_reaches_the_endpoint_but_no_database_log_page_or_export(
    judged_benchmark, sim_config, simulator, monkeypatch, caplog, coordinator, tmp_path, capsys
):
    monkeypatch.setenv("CONCORD_JUDGE_KEY_TEST", SECRET)
    simulator.configure(api_key=SECRET)  # the simulator refuses calls without this key
    caplog.set_level(logging.DEBUG)
    benchmark, systems = judged_benchmark
    run = judge_run_start(
        benchmark=benchmark,
        systems=systems,
        config=sim_config(api_key_env="CONCORD_JUDGE_KEY_TEST"),
    )
    run_here(run_id=run.pk, lanes=2)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED
    assert run.tasks.filter(status="done").count() == 8  # so the key was sent and accepted

    dump = tmp_path / "dump.json"
    call_command("dumpdata", output=str(dump))
    assert SECRET not in dump.read_text(encoding="utf-8")
    assert SECRET not in caplog.text
    client = Client()
    client.force_login(coordinator)
    for url in (reverse("judge-run", args=[run.pk]), reverse("judge-runs")):
        assert SECRET not in client.get(url).content.decode()
    call_command("leaderboard", "--benchmark", "hb", "--json")
    assert SECRET not in capsys.readouterr().out
    assert run.settings_snapshot["api_key_env"] == "CONCORD_JUDGE_KEY_TEST"


def test_a_wrong_key_fails_the_calls_with_the_reason(
    judged_benchmark, sim_config, simulator, monkeypatch
):
    monkeypatch.setenv("CONCORD_JUDGE_KEY_TEST", "wrong")
    simulator.configure(api_key=SECRET)
    benchmark, systems = judged_benchmark
    run = judge_run_start(
        benchmark=benchmark,
        systems=systems,
        config=sim_config(api_key_env="CONCORD_JUDGE_KEY_TEST", max_attempts=1),
    )
    run_here(run_id=run.pk, lanes=2)
    task = run.tasks.first()
    assert task.status == "failed" and "HTTP 401" in task.last_error


def test_a_429_waits_at_least_the_retry_after_before_the_next_attempt(
    judged_benchmark, sim_config, simulator
):
    simulator.configure(rate_429=1.0, retry_after=2)
    benchmark, systems = judged_benchmark
    run = judge_run_start(
        benchmark=benchmark, systems=systems[:1], config=sim_config(max_attempts=1)
    )
    from judging.services.claims import tasks_claim
    from judging.services.execution import Lane, task_execute

    def task_claim(*, run, token):
        claimed = tasks_claim(run=run, token=token, limit=1)
        return claimed[0] if isinstance(claimed, list) else claimed

    lane = Lane(run_id=run.pk, token="t1", min_interval=0)
    run = JudgeRun.objects.select_related("judge_version__prompt").get(pk=run.pk)
    run.settings_snapshot["max_attempts"] = 3
    task = task_claim(run=run, token="t1")
    task_execute(run=run, task=task, lane=lane)
    task.refresh_from_db()
    attempt = JudgeAttempt.objects.get(task=task)
    assert (attempt.outcome, attempt.http_status) == ("rate_limited", 429)
    assert task.status == "pending"
    assert task.not_before >= attempt.created + timedelta(seconds=1.9)
    # Not claimable before then: lanes get the other tasks, then are told to wait.
    others = [task_claim(run=run, token="t2") for _ in range(3)]
    assert task.pk not in {other.pk for other in others}
    assert isinstance(task_claim(run=run, token="t2"), float)
