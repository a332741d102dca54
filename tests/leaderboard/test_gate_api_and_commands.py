"""Recording gate evaluations and publishing, through the API and the commands: the same
service and the same refusals, word for word, as the pages."""

import html
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from leaderboard.models import GateEvaluation, GatePolicy, LeaderboardSnapshot
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - the shared fixture

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_an_evaluation_is_recorded_and_listed_over_the_api(data, researcher, expert):  # noqa: F811
    _, run = data
    url = reverse("api-gate-evaluations", args=["hb"])
    created = api(researcher).post(url, {"round": "R", "run": "latest"}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["round"], body["run"], body["passed"], body["units"]) == ("R", run.pk, True, 8)
    assert body["agreement"] == 0.75 and body["rule"] == "point"
    assert body["judge_version"]["config"] == "judge" and body["report"]["units"] == 8
    assert [e["id"] for e in api(researcher).get(url).json()] == [body["id"]]
    assert api(expert).post(url, {"round": "R"}, format="json").status_code == 403
    bad = api(researcher).post(url, {"round": "abc", "run": "latest"}, format="json")
    assert bad.status_code == 400 and "No review round abc" in bad.json()["detail"]
    bad_run = api(researcher).post(url, {"round": "R", "run": "x"}, format="json")
    assert bad_run.status_code == 400 and "by its id or as 'latest'" in bad_run.json()["detail"]
    assert GateEvaluation.objects.count() == 1


def test_the_gate_command_decides_and_records(data, capsys):  # noqa: F811
    _, run = data
    call_command("gate", "--benchmark", "hb", "--round", "R", "--json")
    decided = json.loads(capsys.readouterr().out)
    assert decided["passed"] and decided["recorded"] is None and decided["judge_run"] == run.pk
    assert not GateEvaluation.objects.exists()
    call_command("gate", "--benchmark", "hb", "--round", "R", "--record", "--json")
    recorded = json.loads(capsys.readouterr().out)
    assert recorded["recorded"] == GateEvaluation.objects.get().pk
    with pytest.raises(CommandError, match="No review round nope"):
        call_command("gate", "--benchmark", "hb", "--round", "nope")


def test_publishing_refuses_alike_on_the_page_the_api_and_the_command(
    data,  # noqa: F811
    coordinator,
    researcher,
    capsys,
):
    _, run = data
    GatePolicy.objects.create(benchmark=run.benchmark, threshold=0.8)
    url = reverse("api-leaderboards", args=["hb"])
    # Not evaluated yet.
    refused = api(coordinator).post(url, {"judge": "judge"}, format="json")
    assert refused.status_code == 409 and refused.json()["refusal"] == "not_evaluated"
    page = client_for(coordinator).post(
        reverse("leaderboard-publish", args=["hb"]), {"run": run.pk, "confirm": "yes"}, follow=True
    )
    assert refused.json()["detail"] in html.unescape(page.content.decode())
    # Evaluated and failed at 80%.
    api(researcher).post(reverse("api-gate-evaluations", args=["hb"]), {"round": "R"})
    failed = GateEvaluation.objects.get()
    refused = api(coordinator).post(url, {"runs": [run.pk]}, format="json")
    assert refused.status_code == 409
    assert refused.json() == {
        "detail": refused.json()["detail"],
        "refusal": "failed",
        "evaluation": failed.pk,
    }
    assert f"evaluation #{failed.pk}" in refused.json()["detail"]
    page = client_for(coordinator).post(
        reverse("leaderboard-publish", args=["hb"]), {"run": run.pk, "confirm": "yes"}, follow=True
    )
    assert refused.json()["detail"] in html.unescape(page.content.decode())
    with pytest.raises(CommandError) as raised:
        call_command(
            "publish", "--benchmark", "hb", "--judge", "judge", "--user", coordinator.username
        )
    assert str(raised.value) == f"refused: {refused.json()['detail']}"
    assert api(researcher).post(url, {"judge": "judge"}, format="json").status_code == 403
    assert not LeaderboardSnapshot.objects.exists()


def test_publishing_through_the_api_and_the_command(data, coordinator, capsys):  # noqa: F811
    _, run = data
    call_command("gate", "--benchmark", "hb", "--round", "R", "--record")
    created = api(coordinator).post(
        reverse("api-leaderboards", args=["hb"]), {"judge": "judge"}, format="json"
    )
    assert created.status_code == 201
    snapshot = LeaderboardSnapshot.objects.get()
    assert created.json()["id"] == snapshot.pk and created.json()["runs"] == [run.pk]
    assert created.json()["gate"] == GateEvaluation.objects.get().pk
    capsys.readouterr()
    call_command("publish", "--benchmark", "hb", "--run", str(run.pk), "--user", "coord", "--json")
    printed = json.loads(capsys.readouterr().out)
    assert printed["published"] == LeaderboardSnapshot.objects.order_by("-pk").first().pk
    listed = api(coordinator).get(reverse("api-leaderboards", args=["hb"])).json()
    assert len(listed) == 2 and listed[0]["rows"][0]["system"] == "Sys"
    with pytest.raises(CommandError, match="not a user allowed to publish"):
        call_command("publish", "--benchmark", "hb", "--judge", "judge", "--user", "nobody")
