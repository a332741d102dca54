import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from judging.models import JudgeConfig, JudgeRun

pytestmark = pytest.mark.django_db(transaction=True)


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def test_a_coordinator_starts_watches_and_cancels_runs_over_the_api(
    judged_benchmark, sim_config, coordinator, researcher, expert
):
    config = sim_config()
    body = {"benchmark": "hb", "systems": ["Alpha", "Beta"], "config": config.pk}
    assert api().post(reverse("api-judge-run-list"), body, format="json").status_code == 401
    for refused in (researcher, expert):
        response = api(refused).post(reverse("api-judge-run-list"), body, format="json")
        assert response.status_code == 403
    response = api(coordinator).post(reverse("api-judge-run-list"), body, format="json")
    assert response.status_code == 201, response.content
    run = response.json()
    assert run["status"] == "finished"  # tasks run in-process under the test settings
    assert run["progress"]["done"] == 8 and run["progress"]["failed"] == 0
    detail = api(researcher).get(reverse("api-judge-run-detail", args=[run["id"]]))
    assert detail.status_code == 200 and detail.json()["systems"] == ["Alpha", "Beta"]
    assert api(expert).get(reverse("api-judge-run-detail", args=[run["id"]])).status_code == 403
    control = api(coordinator).post(reverse("api-judge-run-control", args=[run["id"], "cancel"]))
    assert control.status_code == 200 and control.json()["status"] == "finished"
    assert JudgeRun.objects.count() == 1


def test_configs_over_the_api_refuse_a_pasted_key(judged_benchmark, coordinator):
    response = api(coordinator).post(
        reverse("api-judge-config-list"),
        {"name": "x", "model": "m", "api_key_env": "sk-abc-def-0123456789"},
        format="json",
    )
    assert response.status_code == 400
    assert "This looks like an API key" in response.json()["api_key_env"][0]
    assert "sk-abc" not in response.content.decode()
    assert not JudgeConfig.objects.filter(name="x").exists()
    ok = api(coordinator).post(
        reverse("api-judge-config-list"),
        {"name": "x", "model": "m", "api_key_env": "OPENAI_API_KEY"},
        format="json",
    )
    assert ok.status_code == 201
