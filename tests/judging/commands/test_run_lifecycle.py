"""A run a researcher can drive: `runs list/show/resume/cancel/retry-failed`, the API's
resume and retry-failed on interrupted and failed runs, and how a run with failures looks."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from judging.models import JudgeAttempt, JudgeRun, JudgeTask, Verdict
from judging.services.claims import tasks_claim
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start
from tests.conftest import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def _run_with_failures(judged_benchmark, sim_config, simulator) -> JudgeRun:
    """A finished run whose every reply was cut short (invalid JSON): all eight tasks
    failed. (HTTP 500s for every call would be an outage, which the run waits out.)"""
    simulator.configure(rate_malformed=1.0)
    benchmark, systems = judged_benchmark
    config = sim_config(name="flaky", max_attempts=1)
    run = judge_run_start(benchmark=benchmark, systems=systems, config=config, fresh_calls=True)
    run_here(run_id=run.pk, lanes=2)
    simulator.configure(rate_malformed=0.0)
    run.refresh_from_db()
    assert run.status == "finished" and run.tasks.filter(status="failed").count() == 8
    return run


def _interrupted_run(judged_benchmark, sim_config) -> JudgeRun:
    """A run its command left interrupted: two tasks still leased to the process that was
    stopped at once (nothing answers for them any more)."""
    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems, config=sim_config())
    assert len(tasks_claim(run=run, token="gone", limit=2)) == 2
    JudgeRun.objects.filter(pk=run.pk).update(status="interrupted")
    return run


def _verdicts_once(run: JudgeRun) -> None:
    assert set(run.tasks.values_list("status", flat=True)) == {"done"}
    pairs = list(Verdict.objects.filter(task__run=run).values_list("task", "criterion"))
    assert len(pairs) == len(set(pairs)) == 32


def test_runs_list_and_show_tell_a_finish_with_failures_from_a_clean_one(
    judged_benchmark, sim_config, simulator, capsys
):
    failing = _run_with_failures(judged_benchmark, sim_config, simulator)
    benchmark, systems = judged_benchmark
    clean = judge_run_start(benchmark=benchmark, systems=systems, config=sim_config(name="ok"))
    run_here(run_id=clean.pk, lanes=2)
    call_command("runs", "list", "--json")
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)}
    assert (rows[failing.pk]["state"], rows[failing.pk]["failed"]) == ("finished_with_failures", 8)
    assert (rows[clean.pk]["state"], rows[clean.pk]["failed"]) == ("finished", 0)
    call_command("runs", "list", "--benchmark", "hb")
    text = capsys.readouterr().out
    assert "finished_with_failures" in text and "failed" in text
    call_command("runs", "show", str(failing.pk))
    text = capsys.readouterr().out
    assert "finished with failures" in text
    assert f"python manage.py runs retry-failed {failing.pk}" in text
    with pytest.raises(CommandError, match="no judge run with id 999"):
        call_command("runs", "show", "999")
    with pytest.raises(CommandError, match="no benchmark"):
        call_command("runs", "list", "--benchmark", "nope")


def test_retry_failed_gives_the_failed_tasks_a_fresh_budget_and_keeps_their_log(
    judged_benchmark, sim_config, simulator, capsys
):
    run = _run_with_failures(judged_benchmark, sim_config, simulator)
    call_command("runs", "retry-failed", str(run.pk))
    run.refresh_from_db()
    assert run.status == "finished"
    _verdicts_once(run)
    # Each task: its failed first attempt kept, then the second that succeeded.
    outcomes = list(
        JudgeAttempt.objects.filter(task__run=run)
        .values_list("number", "outcome")
        .order_by()
        .distinct()
    )
    assert sorted(outcomes) == [(1, "invalid"), (2, "ok")]
    assert "8 failed tasks will be tried again" in capsys.readouterr().out


def test_resume_never_waits_for_a_lease_held_by_a_process_that_is_gone(
    judged_benchmark, sim_config, simulator
):
    run = _interrupted_run(judged_benchmark, sim_config)
    call_command("runs", "resume", str(run.pk), "--concurrency", "3")
    run.refresh_from_db()
    assert run.status == "finished"
    assert run.settings_snapshot["max_concurrency"] == 3 and run.lanes.count() == 3
    _verdicts_once(run)
    # The claims made by the stopped process were no attempts: one call per task.
    assert JudgeAttempt.objects.filter(task__run=run).count() == 8


def test_runs_cancel_and_what_cannot_be_resumed(judged_benchmark, sim_config):
    run = _interrupted_run(judged_benchmark, sim_config)
    call_command("runs", "cancel", str(run.pk))
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert set(run.tasks.values_list("status", flat=True)) == {"cancelled"}
    with pytest.raises(CommandError, match="Only a paused or interrupted run"):
        call_command("runs", "resume", str(run.pk))
    with pytest.raises(CommandError, match="cancelled run cannot be retried"):
        call_command("runs", "retry-failed", str(run.pk))


def test_the_api_resumes_an_interrupted_run_and_retries_failed_tasks(
    judged_benchmark, sim_config, simulator, coordinator
):
    api = APIClient()
    api.force_authenticate(coordinator)
    run = _interrupted_run(judged_benchmark, sim_config)
    response = api.post(reverse("api-judge-run-control", args=[run.pk, "resume"]))
    # The test settings run the workers' lanes in-process: the run is done already.
    assert response.status_code == 200 and response.json()["status"] == "finished"
    run.refresh_from_db()
    _verdicts_once(run)
    again = api.post(reverse("api-judge-run-control", args=[run.pk, "resume"]))
    assert again.status_code == 409 and "finished" in again.json()["detail"]

    failing = _run_with_failures(judged_benchmark, sim_config, simulator)
    detail = api.get(reverse("api-judge-run-detail", args=[failing.pk])).json()
    assert detail["state"] == "finished_with_failures"
    response = api.post(reverse("api-judge-run-control", args=[failing.pk, "retry-failed"]))
    assert response.status_code == 200, response.content
    assert response.json()["state"] == "finished"
    assert response.json()["progress"]["failed"] == 0


def test_the_run_pages_show_failures_and_offer_to_retry_them(
    judged_benchmark, sim_config, simulator, coordinator
):
    run = _run_with_failures(judged_benchmark, sim_config, simulator)
    client = client_for(coordinator)
    page = client.get(reverse("judge-run", args=[run.pk])).content.decode()
    assert 'class="badge status-finished_with_failures"' in page
    assert "finished with failures" in page
    assert "Retry failed (8)" in page
    listing = client.get(reverse("judge-runs")).content.decode()
    assert "status-finished_with_failures" in listing
    assert '<td class="num failed">8</td>' in listing
    response = client.post(reverse("judge-run-control", args=[run.pk, "retry-failed"]))
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == "finished" and not run.tasks.filter(status="failed").exists()
    page = client.get(reverse("judge-run", args=[run.pk])).content.decode()
    assert 'class="badge status-finished"' in page and "Retry failed" not in page


def test_an_interrupted_run_page_says_how_to_resume_it(judged_benchmark, sim_config, coordinator):
    run = _interrupted_run(judged_benchmark, sim_config)
    page = client_for(coordinator).get(reverse("judge-run", args=[run.pk])).content.decode()
    assert 'class="badge status-interrupted"' in page
    assert f"python manage.py runs resume {run.pk}" in page
    assert reverse("judge-run-control", args=[run.pk, "resume"]) in page
    assert JudgeTask.objects.filter(run=run, status="running").count() == 2


def test_judging_again_names_the_interrupted_run_of_the_same_judge(
    judged_benchmark, simulator, capsys
):
    args = ["--benchmark", "hb", "--system", "Alpha", "--system", "Beta"]
    args += ["--base-url", simulator.base_url, "--model", "concord-sim", "--json"]
    call_command("judge", *args)
    first = JudgeRun.objects.get()
    JudgeRun.objects.filter(pk=first.pk).update(status="interrupted")
    capsys.readouterr()
    call_command("judge", *args)
    err = capsys.readouterr().err
    assert f"run {first.pk} of this judge on hb was interrupted" in err
    assert f"python manage.py runs resume {first.pk}" in err
