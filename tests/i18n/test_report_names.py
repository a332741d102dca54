"""The agreement chart names abilities as the tables beside it do, and the leaderboard's
"why is this empty" notes, worded by the Django-free scoring modules, are shown in the
reader's language."""

import html
import json
import re

import pytest
from django.urls import reverse

from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from judging.services.judgments_import import judgments_import
from tests.conftest import client_for, jsonl_bytes, lines, question
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = pytest.mark.django_db


def _page(client, url: str, params: dict, language: str) -> str:
    response = client.get(url, params, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def _chart_labels(page: str) -> list[str]:
    found = re.search(r'id="agreement-chart-data" type="application/json">(.*?)</script>', page)
    assert found, "the chart's data is missing"
    return json.loads(found.group(1))["labels"]


def _ability_table(page: str) -> list[str]:
    table = re.search(r'data-breakdown="ability">(.*?)</table>', page, re.S).group(1)
    return [
        html.unescape(name) for name in re.findall(r"<tr data-group=[^>]*><td>(.*?)</td>", table)
    ]


def test_the_ability_chart_uses_the_tables_names_in_each_language(data, researcher):  # noqa: F811
    round_, run = data
    client = client_for(researcher)
    url = reverse("agreement", args=["hb"])
    params = {"round": round_.pk, "run": run.pk}
    english = _page(client, url, params, "en")
    chinese = _page(client, url, params, "zh-hans")

    assert "Emotional Perception" in _chart_labels(english)
    assert "情绪感知" not in _chart_labels(english)
    assert "情绪感知" in _chart_labels(chinese)
    assert "Emotional Perception" not in _chart_labels(chinese)
    for page in (english, chinese):
        assert sorted(_chart_labels(page)) == sorted(_ability_table(page))


def test_leaderboard_notes_on_undefined_scores_follow_the_language(coordinator):
    # One normal case only: the hard score, the decline and the interval are undefined.
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="one")
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": "c1", "response": "嗯"}])),
        benchmark_slug="one",
        system_name="Sys",
    )
    judgments_import(
        chunks=lines(jsonl_bytes([{"question_id": "c1", "score_detail": [1, 1, 0, 0]}])),
        benchmark_slug="one",
        system_name="Sys",
        judge_name="judge",
    )
    client = client_for(coordinator)
    url = reverse("leaderboard", args=["one"])
    english = html.unescape(_page(client, url, {}, "en"))
    chinese = html.unescape(_page(client, url, {}, "zh-hans"))

    assert 'title="no hard cases were scored"' in english
    assert 'title="the hard score is undefined: no hard cases were scored"' in english
    assert 'title="fewer than two cases scored: resampling cannot vary"' in english
    for reason in (
        "no hard cases were scored",
        "the hard score is undefined",
        "fewer than two cases scored",
    ):
        assert reason not in chinese
    assert 'title="没有已计分的困难题目"' in chinese
    assert 'title="困难题目得分无定义：没有已计分的困难题目"' in chinese
