"""The report PDF shows the board corrected by the report's round when it has labelled
responses: per system the judge's score, the corrected score with its 95% interval, the
bias with its interval, the labelled responses, lambda and the effective n, in English and
in Chinese (read back with pypdf)."""

import io

import pytest
from django.urls import reverse
from pypdf import PdfReader

from accounts.roles import RESEARCHER
from accounts.services import user_create_with_role
from annotation.models import ReviewRound
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.corrected.board import corrected_board
from leaderboard.evidence.selectors.pick import agreement_evidence
from leaderboard.management.commands.load_demo import DEMO_JUDGE
from tests.conftest import client_for
from tests.leaderboard.test_corrected_board import ROUND, built, world  # noqa: F401

pytestmark = pytest.mark.django_db


def _text(content: bytes) -> str:
    reader = PdfReader(io.BytesIO(content))
    return " ".join(" ".join(page.extract_text() for page in reader.pages).split())


def _f(value: float) -> str:
    return f"{value:.2f}"


def test_the_pdf_shows_the_corrected_board_in_both_languages(world):  # noqa: F811
    round_ = ReviewRound.objects.get(name=ROUND)
    client = client_for(
        user_create_with_role(username="res", password="x-pass-12", role=RESEARCHER)
    )
    params = {"round": round_.pk, "judge": DEMO_JUDGE}
    url = reverse("agreement-pdf", args=["demo"])
    response = client.get(url, params)
    assert response.status_code == 200
    text = _text(response.content)
    evidence = agreement_evidence(
        benchmark=round_.benchmark, round_ref=str(round_.pk), judge=DEMO_JUDGE
    )
    board = board_runs(benchmark=round_.benchmark, runs=[run.pk for run in evidence.runs])
    payload = corrected_board(board=board, round_=round_, profile="heartbench")
    assert "Scores corrected by the experts' votes" in text
    assert "30 of its 33 sampled responses are labelled" in text
    for row in payload["rows"]:
        o = row["overall"]
        assert o["corrected"] is not None
        expected = (
            f"{row['system']} {_f(o['judge'])} {_f(o['corrected'])} "
            f"[{_f(o['ci_low'])}, {_f(o['ci_high'])}] {_f(o['bias'])} "
            f"[{_f(o['bias_ci_low'])}, {_f(o['bias_ci_high'])}] {o['labelled']} "
            f"{_f(o['lambda'])} {o['effective_n']:.0f}"
        )
        assert expected in text
    chinese = _text(client.get(url, params, HTTP_ACCEPT_LANGUAGE="zh-hans").content)
    assert "经专家投票校正的得分" in chinese and "已标注" in chinese
    first = payload["rows"][0]["overall"]
    assert f"{_f(first['corrected'])} [{_f(first['ci_low'])}, {_f(first['ci_high'])}]" in chinese
    # The plain reading of each system, in Chinese: the CJK font draws it.
    assert "专家" in chinese and "The experts' votes" not in chinese
