"""The researchers' pages in a real browser, in both languages: a disagreement opens its
case; the board shows its gate state and why Publish is disabled; the ability heatmap fits
a 1366x768 screen without scrolling the page sideways."""

import re

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR, RESEARCHER
from accounts.services import user_create_with_role
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.taxonomy import ABILITIES
from judging.services.judgments_import import judgments_import
from leaderboard.evidence.selectors.pick import agreement_evidence
from leaderboard.gate.services.evaluation import gate_evaluate
from leaderboard.models import GatePolicy
from tests.conftest import PASSWORD, jsonl_bytes, lines, question
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - shared fixture

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_disagreement_opens_its_case(e2e, page, data, language):  # noqa: F811
    round_, run = data
    user_create_with_role(username="res", password=PASSWORD, role=RESEARCHER)
    set_language(page, e2e, language)
    login(page, e2e, "res", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/hb/agreement/?round={round_.pk}&run={run.pk}")
    # The chart drew, with its threshold line (the script marks the canvas).
    expect(page.locator("#agreement-chart")).to_have_attribute("data-threshold", "0.75")
    expect(page.locator("tr[data-stat='cohen_kappa'] td.reading")).not_to_be_empty()
    screenshot(page, f"reader-agreement-{language}")
    page.goto(f"{e2e.url}/benchmarks/hb/agreement/disagreements/?round={round_.pk}&run={run.pk}")
    page.locator("a.case-link").first.click()
    expect(page.locator("tr.highlight")).to_be_visible()
    expect(page.locator("#response-text")).to_be_visible()
    expect(page.locator("ol.chat")).to_contain_text("最近加班太多了")
    expect(page.locator("table.case-rubric tbody tr")).to_have_count(4)
    expect(page.locator("tr.highlight ul.votes li")).to_have_count(3)
    screenshot(page, f"reader-case-{language}")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_board_shows_the_gate_and_why_publish_is_disabled(e2e, page, data, language):  # noqa: F811
    round_, run = data
    GatePolicy.objects.create(benchmark=run.benchmark, threshold=0.8)
    coordinator = user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    gate_evaluate(
        evidence=agreement_evidence(
            benchmark=run.benchmark, round_ref=str(round_.pk), run_ref=str(run.pk)
        ),
        user=coordinator,
    )
    set_language(page, e2e, language)
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/hb/leaderboard/?run={run.pk}")
    expect(page.locator("#gate-state")).to_be_visible()
    expect(page.locator("#gate-state")).to_contain_text("75.0%")
    publish = page.locator("form[action$='/leaderboard/publish/'] button[type=submit]")
    expect(publish).to_be_disabled()
    expect(page.locator("#publish-reason")).to_be_visible()
    expect(page.locator("#publish-reason")).to_contain_text("80.0%")
    screenshot(page, f"reader-board-gate-{language}")


def _wide_benchmark() -> None:
    """Every ability of the taxonomy in each case, and systems with long names: the widest
    heatmap HeartBench gives."""
    rubric = [
        {"dimension": label, "score": None if code == "catastrophic" else 3, "content": en}
        for label, code, en, _zh in ABILITIES
    ]
    ids = [f"w{i}" for i in range(6)]
    benchmark_import(
        chunks=lines(jsonl_bytes([question(q, rubric=rubric) for q in ids])),
        benchmark_slug="wide",
    )
    for number, name in enumerate(
        ("Qwen2.5-72B-Instruct", "DeepSeek-V3-0324", "GPT-4o-2024-11-20", "Human counsellor 1")
    ):
        responses_import(
            chunks=lines(jsonl_bytes([{"question_id": q, "response": "嗯"} for q in ids])),
            benchmark_slug="wide",
            system_name=name,
        )
        verdicts = [
            {
                "question_id": q,
                "score_detail": [
                    int((i * 7 + j * 3) % (number + 2) != 0) if code != "catastrophic" else 0
                    for j, (_l, code, _e, _z) in enumerate(ABILITIES)
                ],
            }
            for i, q in enumerate(ids)
        ]
        judgments_import(
            chunks=lines(jsonl_bytes(verdicts)),
            benchmark_slug="wide",
            system_name=name,
            judge_name="J",
        )


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_heatmap_fits_a_1366_screen(e2e, page, language):
    _wide_benchmark()
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    page.set_viewport_size({"width": 1366, "height": 768})
    set_language(page, e2e, language)
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/wide/leaderboard/?judge=J")
    heatmap = page.locator("#ability-heatmap")
    expect(heatmap.locator("thead abbr")).to_have_count(
        sum(code != "catastrophic" for _l, code, _e, _z in ABILITIES)
    )
    heatmap.scroll_into_view_if_needed()
    sizes = page.evaluate(
        """() => {
          const wrap = document.getElementById("ability-heatmap");
          return {page: document.documentElement.scrollWidth, view: window.innerWidth,
                  table: wrap.scrollWidth, box: wrap.clientWidth,
                  right: wrap.querySelector("table").getBoundingClientRect().right};
        }"""
    )
    assert sizes["page"] <= sizes["view"], f"the page scrolls sideways: {sizes}"
    assert sizes["table"] <= sizes["box"], f"the heatmap overflows its box: {sizes}"
    assert sizes["right"] <= sizes["view"], sizes
    # Values stay as text in the cells.
    expect(heatmap.locator("td.heat").first).to_have_text(re.compile(r"^\d+\.\d$"))
    screenshot(page, f"reader-heatmap-1366-{language}")
