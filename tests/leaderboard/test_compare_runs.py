"""Comparing two judges: on the units both judged, how often they agree with each other
(Cohen's kappa, McNemar's exact test) and, on a review round, how each agrees with the
experts' majority, with the paired difference and its cluster-bootstrap interval."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from judging.models import JudgeRun
from judging.services.judgments_import import judgments_import
from tests.conftest import client_for, jsonl_bytes, lines
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = pytest.mark.django_db

# The experts' majority: c1 1 1 0 0, c2 0 1 1 1. The shared fixture's judge agrees on 6 of
# these 8 units; this second judge agrees on all 8.
SECOND = {"c1": [1, 1, 0, 0], "c2": [0, 1, 1, 1]}


@pytest.fixture
def two_runs(data):  # noqa: F811
    round_, first = data
    judgments_import(
        chunks=lines(
            jsonl_bytes([{"question_id": q, "score_detail": d} for q, d in SECOND.items()])
        ),
        benchmark_slug="hb",
        system_name="Sys",
        judge_name="second",
    )
    second = JudgeRun.objects.exclude(pk=first.pk).get()
    return round_, first, second


def _compare(*args) -> dict:
    from io import StringIO

    out = StringIO()
    call_command("compare_runs", "--benchmark", "hb", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_two_runs_against_each_other(two_runs):
    _round, first, second = two_runs
    result = _compare("--run", str(first.pk), "--run", str(second.pk))
    shared = result["shared"]
    assert shared["units"] == 8 and result["only_in_first"] == result["only_in_second"] == 0
    assert shared["agreement"]["value"] == pytest.approx(6 / 8)
    assert (shared["first_hit_second_miss"], shared["first_miss_second_hit"]) == (1, 1)
    assert shared["mcnemar_p"]["value"] == 1.0
    # Kappa from the 2x2 table [[4, 1], [1, 2]]: po 6/8, pe (5/8)^2 + (3/8)^2 = 34/64.
    assert shared["cohens_kappa"]["value"] == pytest.approx((48 / 64 - 34 / 64) / (30 / 64))
    assert set(result["by_ability"]) == {"情绪感知", "好奇心", "言语表达", "其他"}
    assert [run["id"] for run in result["runs"]] == [first.pk, second.pk]
    assert result["runs"][0]["judge_version"]["fingerprint"] == first.judge_version.fingerprint


def test_with_a_round_each_run_against_the_majority(two_runs):
    _round, first, second = two_runs
    result = _compare("--run", str(first.pk), "--run", str(second.pk), "--round", "R")
    found = result["round"]
    assert found["units"] == 8
    assert found["first_agreement"]["value"] == pytest.approx(0.75)
    assert found["second_agreement"]["value"] == pytest.approx(1.0)
    assert found["difference"]["value"] == pytest.approx(-0.25)
    interval = found["difference_95"]
    assert interval["low"] <= -0.25 <= interval["high"]


def test_the_table_and_the_refusals(two_runs, capsys):
    _round, first, second = two_runs
    call_command(
        "compare_runs", "--benchmark", "hb", "--run", str(first.pk), "--run", str(second.pk)
    )
    text = capsys.readouterr().out
    assert "8 shared units" in text and "Cohen's kappa 0.467" in text
    with pytest.raises(CommandError, match="Name two different judge runs"):
        call_command("compare_runs", "--benchmark", "hb", "--run", str(first.pk))
    with pytest.raises(CommandError, match="No judge run #999"):
        call_command("compare_runs", "--benchmark", "hb", "--run", str(first.pk), "--run", "999")
    with pytest.raises(CommandError, match="No review round 'nope'"):
        call_command(
            "compare_runs", "--benchmark", "hb", "--run", str(first.pk), "--run",
            str(second.pk), "--round", "nope",
        )  # fmt: skip


def test_the_api_compares_too(two_runs, researcher):
    _round, first, second = two_runs
    url = reverse("api-compare-runs", args=["hb"])
    answer = client_for(researcher).get(url, {"run": [first.pk, second.pk], "round": "R"})
    assert answer.status_code == 200, answer.content
    assert answer.json()["round"]["difference"]["value"] == pytest.approx(-0.25)
    refused = client_for(researcher).get(url, {"run": [first.pk]})
    assert (
        refused.status_code == 400 and "Name two different judge runs" in refused.json()["detail"]
    )
    expert = _round.experts.first()
    assert client_for(expert).get(url, {"run": [first.pk, second.pk]}).status_code == 403


@pytest.fixture
def researcher():
    from accounts.roles import RESEARCHER
    from accounts.services import user_create_with_role

    return user_create_with_role(username="researcher", password="x-pass-123", role=RESEARCHER)
