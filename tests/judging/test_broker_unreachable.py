"""Starting a run while the workers' broker is down: a clear message, nothing written.

The broker is a real Redis URL pointing at a loopback port nobody listens on, and tasks are
not run in-process, so the start has to go through the broker."""

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from judging.models import JudgeLane, JudgeRun, JudgeTask
from tests.conftest import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def assert_nothing_created() -> None:
    assert JudgeRun.objects.count() == 0
    assert JudgeTask.objects.count() == 0
    assert JudgeLane.objects.count() == 0


def test_the_page_says_the_workers_are_not_reachable(
    judged_benchmark, sim_config, coordinator, broker_down
):
    benchmark, systems = judged_benchmark
    config = sim_config()
    response = client_for(coordinator).post(
        reverse("judge-run-new"),
        {"benchmark": benchmark.pk, "systems": [s.pk for s in systems], "config": config.pk},
    )
    assert response.status_code == 503
    page = response.content.decode()
    assert "The workers are not reachable" in page
    assert broker_down in page
    assert "s3cret-pass" not in page and "concord:" not in page
    assert "Connection refused" in page
    assert_nothing_created()


def test_the_api_answers_503_and_names_the_broker(
    judged_benchmark, sim_config, coordinator, broker_down
):
    benchmark, systems = judged_benchmark
    config = sim_config()
    response = client_for(coordinator).post(
        "/api/judge-runs/",
        {"benchmark": benchmark.slug, "systems": [s.name for s in systems], "config": config.pk},
        content_type="application/json",
    )
    assert response.status_code == 503, response.content
    detail = response.json()["detail"]
    assert detail.startswith("The workers are not reachable") and broker_down in detail
    assert "s3cret-pass" not in detail
    assert_nothing_created()


def _judge(simulator, *extra: str) -> None:
    call_command(
        "judge",
        *("--benchmark", "hb", "--system", "Alpha", "--base-url", simulator.base_url),
        *("--model", "concord-sim", "--json", *extra),
    )


def test_the_command_refuses_with_the_same_message(judged_benchmark, simulator, broker_down):
    with pytest.raises(CommandError, match="The workers are not reachable") as refused:
        _judge(simulator, "--via-workers")
    assert broker_down in str(refused.value)
    assert_nothing_created()


def test_the_command_without_workers_needs_no_broker(judged_benchmark, simulator, broker_down):
    _judge(simulator)
    assert JudgeRun.objects.get().status == JudgeRun.Status.FINISHED


def test_resuming_a_paused_run_is_refused_and_the_run_stays_paused(
    judged_benchmark, sim_config, coordinator, broker_down
):
    benchmark, _systems = judged_benchmark
    run = JudgeRun.objects.create(
        benchmark=benchmark,
        judge_version=sim_config().current_version,
        status=JudgeRun.Status.PAUSED,
    )
    client = client_for(coordinator)
    response = client.post(reverse("judge-run-control", args=[run.pk, "resume"]), follow=True)
    assert "The workers are not reachable" in response.content.decode()
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.PAUSED
    api = client.post(f"/api/judge-runs/{run.pk}/resume/")
    assert api.status_code == 503
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.PAUSED
