"""The demo's early-stop round, seen by its coordinator in both languages: the live card
on the round dashboard with the decision, the chart of the confidence sequence against
the threshold, and the savings line; the notice; and the planning panel of the new-round
form."""

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from annotation.models import ReviewRound
from leaderboard.management.commands.load_demo import DEMO_PASSWORD, EARLY_STOP_ROUND
from leaderboard.sequential.selectors.round_state import round_sequential
from tests.e2e.accessibility import axe_violations, describe
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language

pytestmark = pytest.mark.browser

WORDS = {
    "en": {
        "decided": "Decided: the judge passes, after {n} of {total} items.",
        "savings": "Decided after {n} of {total} items; {ratings} ratings (about",
        "notice": "The sequential test has decided that the judge passes",
        "plan": "Sequential test, median",
        "estimate": "Estimate",
    },
    "zh-hans": {
        "decided": "已决定：评审模型通过，用了 {total} 个条目中的 {n} 个。",
        "savings": "在 {total} 个条目中的 {n} 个之后得出结论；{ratings} 次评分（按专家的",
        "notice": "序贯检验已得出结论：评审模型通过",
        "plan": "序贯检验，中位数",
        "estimate": "估算",
    },
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_demo_round_shows_its_decision_chart_and_savings(e2e, page, language):
    call_command("load_demo")
    round_ = ReviewRound.objects.get(name=EARLY_STOP_ROUND)
    state = round_sequential(round_=round_).state
    words = {
        key: text.format(
            n=state["decided_at"],
            total=state["items_total"],
            ratings=state["savings"]["ratings_not_needed"],
        )
        for key, text in WORDS[language].items()
    }
    set_language(page, e2e, language)
    login(page, e2e, "coordinator", DEMO_PASSWORD)
    page.goto(f"{e2e.url}/review/manage/rounds/{round_.pk}/")
    expect(page.get_by_test_id("decision-notice")).to_contain_text(words["notice"])
    card = page.locator("#round-sequential-card")
    expect(card).to_have_attribute("data-decision", "pass")
    expect(card).to_contain_text(words["decided"])
    expect(card.get_by_test_id("sequential-savings")).to_contain_text(words["savings"])
    chart = card.get_by_test_id("sequence-chart")
    expect(chart).to_be_visible()
    expect(chart.get_by_test_id("sequence-threshold")).to_have_count(1)
    points = chart.get_by_test_id("sequence-lower").get_attribute("points").split()
    assert len(points) == state["items_used"]
    violations = axe_violations(page)
    assert not violations, describe(violations)
    screenshot(page, f"early-stop-round-{language}")

    # Reopened, the decided round offers its coordinator to close it early again.
    page.locator(f"form[action$='/rounds/{round_.pk}/reopen/'] button").click()
    expect(page.locator("h1 .badge.status-open")).to_be_visible()
    page.locator(f"#round-sequential-card a[href$='/rounds/{round_.pk}/close/?early=1']").click()
    page.wait_for_url(f"**/rounds/{round_.pk}/close/?early=1")
    expect(page.get_by_test_id("decision-notice")).to_contain_text(words["notice"])
    page.locator("input[name=confirm]").check()
    page.locator("main form button[type=submit]").click()
    expect(page.locator("h1 .badge.status-closed")).to_be_visible()

    page.goto(f"{e2e.url}/review/manage/rounds/new/")
    page.get_by_role("button", name=words["estimate"]).click()
    expect(page.get_by_test_id("round-plan")).to_contain_text(words["plan"])
    screenshot(page, f"round-plan-{language}")
    violations = axe_violations(page)
    assert not violations, describe(violations)
