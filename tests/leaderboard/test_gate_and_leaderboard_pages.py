import pytest
from django.urls import reverse

from leaderboard.models import GateEvaluation, GatePolicy, LeaderboardSnapshot
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - the shared fixture

pytestmark = pytest.mark.django_db


def test_agreement_page_shows_the_gate_and_records_an_evaluation(data, researcher):  # noqa: F811
    round_, run = data
    client = client_for(researcher)
    page = client.get(reverse("agreement", args=["hb"]), {"round": round_.pk, "run": run.pk})
    body = page.content.decode()
    assert "Gate passed" in body and '<strong id="agreement-value">75.0%' in body
    assert 'id="agreement-chart-data"' in body
    client.post(reverse("gate-record", args=["hb"]), {"round": round_.pk, "run": run.pk})
    evaluation = GateEvaluation.objects.get()
    assert evaluation.passed and evaluation.units == 8 and evaluation.agreement == 0.75
    assert evaluation.evaluated_by == researcher and evaluation.rule == "point"


def test_publishing_needs_a_passed_gate(data, coordinator, researcher):  # noqa: F811
    round_, run = data
    client = client_for(coordinator)
    url = reverse("leaderboard-publish", args=["hb"])
    response = client.post(
        url, {"run": run.pk, "profile": "heartbench", "confirm": "yes"}, follow=True
    )
    assert "has not been checked against the experts on this benchmark" in (
        response.content.decode()
    )
    GatePolicy.objects.create(benchmark=run.benchmark, threshold=0.8)
    client.post(reverse("gate-record", args=["hb"]), {"round": round_.pk, "run": run.pk})
    failed = GateEvaluation.objects.get()
    refused = client.post(
        url, {"run": run.pk, "profile": "heartbench", "confirm": "yes"}, follow=True
    )
    text = refused.content.decode().replace("&#x27;", "'")
    assert (
        f"judge v1 failed the gate: evaluation #{failed.pk} (round R, run #{run.pk}) found "
        "agreement 75.0% on 8 units, threshold 80.0%"
    ) in text
    # Recording the same round again under a laxer policy does not overturn the failure:
    # only a pass on a round opened later can.
    GatePolicy.objects.filter(benchmark=run.benchmark).update(threshold=0.75)
    client.post(reverse("gate-record", args=["hb"]), {"round": round_.pk, "run": run.pk})
    assert GateEvaluation.objects.filter(passed=True).count() == 1
    again = client.post(
        url, {"run": run.pk, "profile": "heartbench", "confirm": "yes"}, follow=True
    )
    assert f"evaluation #{failed.pk}" in again.content.decode()
    assert not LeaderboardSnapshot.objects.exists()
    assert client_for(researcher).post(url, {"run": run.pk}).status_code == 403


def test_a_passed_gate_publishes_with_the_evaluation_named(data, coordinator):  # noqa: F811
    round_, run = data
    client = client_for(coordinator)
    client.post(reverse("gate-record", args=["hb"]), {"round": round_.pk, "run": run.pk})
    evaluation = GateEvaluation.objects.get()
    published = client.post(
        reverse("leaderboard-publish", args=["hb"]),
        {"run": run.pk, "profile": "heartbench", "confirm": "yes"},
        follow=True,
    )
    snapshot = LeaderboardSnapshot.objects.get()
    assert snapshot.gate == evaluation and snapshot.rows[0]["system"] == "Sys"
    assert list(snapshot.runs.all()) == [run] and snapshot.judge_version == run.judge_version
    assert (
        f"Validated by gate evaluation #{evaluation.pk}: judge v1 agreed with the experts"
        in published.content.decode().replace("&#x27;", "'")
    )
    assert "75.0% of 8 units of the round R" in published.content.decode()


def test_leaderboard_page_is_marked_unpublished_and_refuses_experts(data, coordinator, expert):  # noqa: F811
    body = client_for(coordinator).get(reverse("leaderboard", args=["hb"])).content.decode()
    assert "not published" in body and "Sys" in body
    assert client_for(expert).get(reverse("leaderboard", args=["hb"])).status_code == 403
    assert client_for(expert).get(reverse("agreement", args=["hb"])).status_code == 403


def test_the_disagreement_browser_lists_each_difference_with_reasons(data, researcher):  # noqa: F811
    round_, run = data
    url = reverse("disagreements", args=["hb"])
    page = client_for(researcher).get(url, {"round": round_.pk, "run": run.pk})
    body = page.content.decode()
    assert "2 disagreements" in body  # c1 criterion 3 (judge only), c2 criterion 2 (human only)
    judge_only = client_for(researcher).get(
        url, {"round": round_.pk, "run": run.pk, "direction": "judge_only"}
    )
    assert "1 disagreement" in judge_only.content.decode()


def test_the_report_and_the_leaderboard_over_the_api(data, researcher, expert):  # noqa: F811
    from rest_framework.test import APIClient

    round_, run = data
    client = APIClient()
    client.force_authenticate(researcher)
    report = client.get(reverse("api-agreement", args=["hb"]), {"round": round_.pk, "run": run.pk})
    assert report.status_code == 200 and report.json()["percent_agreement"] == 0.75
    assert client.get(reverse("api-agreement", args=["hb"]), {"round": "x"}).status_code == 400
    board = client.get(reverse("api-leaderboard", args=["hb"]), {"run": run.pk})
    assert board.json()["systems"][0]["system"] == "Sys"
    client.force_authenticate(expert)
    denied = client.get(reverse("api-agreement", args=["hb"]), {"round": round_.pk, "run": run.pk})
    assert denied.status_code == 403


def test_the_disagreement_browser_shows_the_first_rows_and_counts_them_all(
    data,  # noqa: F811
    researcher,
    monkeypatch,
):
    import leaderboard.report.views.agreement as views

    round_, run = data
    monkeypatch.setattr(views, "SHOWN", 1)
    page = client_for(researcher).get(
        reverse("disagreements", args=["hb"]), {"round": round_.pk, "run": run.pk}
    )
    body = page.content.decode()
    assert "2 disagreements (the first 1 are shown; the export has them all)" in body
    assert body.count("<tr>") == 2, "the header and one row"
