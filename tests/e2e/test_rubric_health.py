"""From the rubric health page to a revision: the coordinator follows a flagged criterion
into the rubric editor, sees the evidence, publishes, and the rubric history shows the
criterion's health before (flagged) and after (not yet rated) the revision."""

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR
from accounts.services import user_create_with_role
from annotation.models import RubricVersion
from tests.conftest import PASSWORD
from tests.e2e.accessibility import axe_violations, describe
from tests.e2e.conftest import login, screenshot, set_language
from tests.leaderboard.test_rubric_health import seed

pytestmark = pytest.mark.browser


def test_revise_a_flagged_criterion_from_the_health_page(e2e, page):
    seed()
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    login(page, e2e, "coord", PASSWORD)

    page.goto(f"{e2e.url}/benchmarks/hb/rubrics/health/")
    expect(page.locator("p.summary")).to_have_text("3 of 8 criteria flagged for revision.")
    assert not axe_violations(page), describe(axe_violations(page))
    screenshot(page, "rubric-health")

    page.get_by_role("link", name="Revise c1").click()
    evidence = page.locator(".health-evidence")
    expect(evidence).to_contain_text("ambiguous: experts split on it")
    expect(evidence).to_contain_text("experts unanimous on 4 of 6 units")
    clearer = "用一个开放式问题（以问号结尾）询问加班的具体情况"
    page.get_by_label("Text of criterion 2").fill(clearer)
    page.get_by_label("Change note (what you changed and why)").fill("问句的标准写明确")
    page.get_by_role("button", name="Publish as version 2").click()
    page.wait_for_url("**/rubric/history/")

    health = page.locator("section#rubric-health-versions")  # loaded by htmx into the history
    expect(health).to_contain_text("Health of each criterion, version by version")
    row_group = health.locator("tbody").nth(1)  # criterion 2: v2, then v1
    expect(row_group.locator("tr").nth(0)).to_contain_text(
        "No expert ratings or judge verdicts on this version yet."
    )
    expect(row_group.locator("tr").nth(1)).to_contain_text("ambiguous: experts split on it")
    assert not axe_violations(page), describe(axe_violations(page))
    screenshot(page, "rubric-health-history")
    note = RubricVersion.objects.get(number=2, case__external_id="c1").note
    assert note.startswith("问句的标准写明确 (Rubric health of v1 #2")


def _held_report(page) -> list:
    """Holds the request for the report's part (htmx's), so the page is seen computing."""
    held: list = []
    page.route(
        "**/rubrics/health/**",
        lambda route: (
            held.append(route) if route.request.headers.get("hx-request") else route.continue_()
        ),
    )
    return held


def _shows_progress_then_the_report(page, url: str, computing: str, summary: str, name: str):
    held = _held_report(page)
    page.goto(url)
    indicator = page.locator("#rubric-health-report .htmx-indicator")
    expect(indicator).to_have_text(computing)
    expect(indicator).to_have_css("opacity", "1")
    expect(page.locator("p.summary")).to_have_count(0)
    found = axe_violations(page, settled=False)
    assert not found, describe(found)
    screenshot(page, name)
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("p.summary")).to_have_text(summary)
    expect(indicator).to_have_count(0)


@pytest.mark.parametrize(
    ("language", "computing", "summary"),
    [
        ("en", "Computing rubric health…", "3 of 8 criteria flagged for revision."),
        ("zh-hans", "正在计算评分细则健康度…", "8 条评分标准中有 3 条被标记为需要修订。"),
    ],
)
def test_the_page_says_it_is_computing_then_shows_the_report(
    e2e, page, language, computing, summary
):
    seed()
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    set_language(page, e2e, language)
    login(page, e2e, "coord", PASSWORD)
    _shows_progress_then_the_report(
        page,
        f"{e2e.url}/benchmarks/hb/rubrics/health/",
        computing,
        summary,
        f"rubric-health-computing-{language}",
    )
    assert not axe_violations(page), describe(axe_violations(page))


def test_the_page_in_chinese(e2e, page):
    seed()
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    set_language(page, e2e, "zh-hans")
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/hb/rubrics/health/")
    expect(page.locator("h1")).to_have_text("hb 的评分细则健康度")
    expect(page.locator("p.summary")).to_have_text("8 条评分标准中有 3 条被标记为需要修订。")
    assert not axe_violations(page), describe(axe_violations(page))
    screenshot(page, "rubric-health-zh")
