import pytest
from django.urls import reverse

from judging.models import JudgeConfig, JudgeRun
from tests.conftest import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def test_pages_refuse_anonymous_users_experts_and_outsiders(judged_benchmark, expert, outsider):
    urls = [
        reverse("judge-runs"),
        reverse("judge-run-new"),
        reverse("judge-config-new"),
        reverse("judge-run", args=[1]),
    ]
    for url in urls:
        assert client_for(None).get(url).status_code == 302
        assert client_for(expert).get(url).status_code == 403
        assert client_for(outsider).get(url).status_code == 403


def test_researchers_watch_runs_but_cannot_start_or_steer_them(
    judged_benchmark, sim_config, researcher
):
    client = client_for(researcher)
    assert client.get(reverse("judge-runs")).status_code == 200
    assert client.get(reverse("judge-run-new")).status_code == 403
    config = sim_config()
    benchmark, systems = judged_benchmark
    response = client.post(
        reverse("judge-run-new"),
        {"benchmark": benchmark.pk, "systems": [s.pk for s in systems], "config": config.pk},
    )
    assert response.status_code == 403
    assert not JudgeRun.objects.exists()
    assert client.post(reverse("judge-run-control", args=[1, "pause"])).status_code == 403


def test_a_coordinator_starts_a_run_and_watches_it_finish(
    judged_benchmark, sim_config, coordinator, simulator
):
    config = sim_config()
    benchmark, systems = judged_benchmark
    client = client_for(coordinator)
    response = client.post(
        reverse("judge-run-new"),
        {"benchmark": benchmark.pk, "systems": [s.pk for s in systems], "config": config.pk},
    )
    run = JudgeRun.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("judge-run", args=[run.pk])
    # Test settings run background tasks in-process, so the lanes have finished already.
    page = client.get(reverse("judge-run", args=[run.pk])).content.decode()
    assert "simulated provider" in page
    assert '<td class="num" id="count-done">8</td>' in page
    assert '<td class="num" id="count-failed">0</td>' in page
    partial = client.get(reverse("judge-run", args=[run.pk]), headers={"HX-Request": "true"})
    assert partial.content.decode().lstrip().startswith('<section id="run-progress"')
    assert "hx-trigger" not in partial.content.decode()  # finished runs stop polling


def test_pause_resume_and_cancel(judged_benchmark, sim_config, coordinator, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # keep the run waiting: no worker is running
    from judging.services.runs import judge_run_start

    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems, config=sim_config())
    client = client_for(coordinator)
    client.post(reverse("judge-run-control", args=[run.pk, "pause"]))
    run.refresh_from_db()
    assert run.status == "paused"
    client.post(reverse("judge-run-control", args=[run.pk, "cancel"]))
    run.refresh_from_db()
    assert run.status == "cancelled"
    assert set(run.tasks.values_list("status", flat=True)) == {"cancelled"}
    assert client.post(reverse("judge-run-control", args=[run.pk, "explode"])).status_code == 404


def test_a_pasted_key_is_refused_and_never_stored(coordinator):
    secret = "sk-live-ThisIsARecognisableSecret123456"
    response = client_for(coordinator).post(
        reverse("judge-config-new"),
        {
            "name": "real",
            "base_url": "https://api.example.org/v1",
            "model": "m",
            "api_key_env": secret,
            "prompt": "",
            "temperature": 0,
            "max_output_tokens": 100,
            "timeout_seconds": 10,
            "max_concurrency": 2,
            "requests_per_minute": 0,
            "max_attempts": 3,
            "backoff_seconds": 1,
            "price_prompt_per_1k": 0,
            "price_completion_per_1k": 0,
        },
    )
    assert response.status_code == 400
    assert "This looks like an API key" in response.content.decode()
    assert secret not in response.content.decode()
    assert not JudgeConfig.objects.filter(name="real").exists()
