"""The live leaderboard tells its status and its uncertainty: the gate state and why Publish
is not available, rank bands for overlapping intervals, a heatmap that reads (abbreviated
heads with full names, a palette with contrast)."""

import re

import pytest
from django.urls import reverse

from annotation.models import System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from judging.services.judgments_import import judgments_import
from leaderboard.boards.board import (
    DARK_TEXT,
    HUE,
    SATURATION,
    contrast,
    heat_colours,
    luminance_of_hsl,
)
from leaderboard.models import GateEvaluation, GatePolicy
from tests.conftest import client_for, jsonl_bytes, lines, question
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - the shared fixture

pytestmark = pytest.mark.django_db


def _luminance(score: float) -> float:
    return luminance_of_hsl(HUE, SATURATION, heat_colours(score)[0])


def test_every_heat_cell_has_readable_text_and_the_scale_is_not_pale():
    white, dark = 1.0, 0.0
    for score in range(0, 101):
        _, text = heat_colours(score)
        ink = dark if text == DARK_TEXT else white
        assert contrast(_luminance(score), ink) >= 4.5, score
    # 0 and 100 differ clearly, and so do 40 and 80 (the range scores fall in).
    assert contrast(_luminance(0), _luminance(100)) >= 7
    assert contrast(_luminance(40), _luminance(80)) >= 2


def test_a_failed_gate_shows_on_the_board_and_publish_is_disabled_with_the_reason(
    data,  # noqa: F811
    coordinator,
):
    round_, run = data
    GatePolicy.objects.create(benchmark=run.benchmark, threshold=0.8)
    client = client_for(coordinator)
    client.post(reverse("gate-record", args=["hb"]), {"round": round_.pk, "run": run.pk})
    failed = GateEvaluation.objects.get()
    body = client.get(reverse("leaderboard", args=["hb"]), {"run": run.pk}).content.decode()
    state = re.search(r'<p class="card gate failed" id="gate-state" role="status">(.*?)</p>', body)
    assert state and f"evaluation #{failed.pk}" in state[1] and "failed the gate" in state[1]
    button = re.search(r"<button[^>]*>Publish this leaderboard</button>", body)[0]
    assert "disabled" in button and 'aria-describedby="gate-state publish-reason"' in button
    reason = re.search(r'id="publish-reason">(.*?)</p>', body, re.S)
    assert reason and "Publishing is not available" in reason[1]


def _two_close_systems() -> None:
    ids = [f"q{i}" for i in range(8)]
    benchmark_import(chunks=lines(jsonl_bytes([question(q) for q in ids])), benchmark_slug="two")
    high, low = [1, 1, 0, 0], [1, 0, 0, 0]
    # Two systems a little apart, each with cases on both sides: their intervals overlap.
    for name, step in (("Near-A", 3), ("Near-B", 2)):
        responses_import(
            chunks=lines(jsonl_bytes([{"question_id": q, "response": "嗯"} for q in ids])),
            benchmark_slug="two",
            system_name=name,
        )
        verdicts = [
            {"question_id": q, "score_detail": high if i % step else low} for i, q in enumerate(ids)
        ]
        judgments_import(
            chunks=lines(jsonl_bytes(verdicts)),
            benchmark_slug="two",
            system_name=name,
            judge_name="J",
        )
    assert System.objects.filter(name__startswith="Near-").count() == 2


def test_systems_whose_intervals_overlap_share_a_rank_band(coordinator):
    _two_close_systems()
    body = (
        client_for(coordinator)
        .get(reverse("leaderboard", args=["two"]), {"judge": "J"})
        .content.decode()
    )
    ranking = body.split('id="ranking"')[1].split("</table>")[0]
    ranks = re.findall(r'<td class="rank[^"]*"[^>]*>([^<]+)</td>', ranking)
    assert ranks == ["1–2", "1–2"], ranks
    assert 'id="rank-note"' in body and "share a band" in body


def test_heatmap_heads_are_abbreviated_with_the_full_name_as_tooltip(data, coordinator):  # noqa: F811
    _, run = data
    body = (
        client_for(coordinator)
        .get(reverse("leaderboard", args=["hb"]), {"run": run.pk})
        .content.decode()
    )
    heads = body.split('id="ability-heatmap"')[1].split("</thead>")[0]
    assert '<abbr title="Verbal Expression">VE</abbr>' in heads
    assert "言语表达" not in heads, "raw Chinese labels in the English interface"
