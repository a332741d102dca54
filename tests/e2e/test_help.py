"""Help in a real browser, in both languages: each role's Help link opens its own guide in
the interface's language, and the "?" beside a statistic of the agreement report opens the
researcher guide at that statistic."""

import re

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER
from accounts.services import user_create_with_role
from tests.conftest import PASSWORD
from tests.e2e.accessibility import axe_violations, describe
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - shared fixture

pytestmark = pytest.mark.browser

GUIDE_TITLES = {
    ("expert", "en"): "Expert guide",
    ("expert", "zh-hans"): "专家指南",
    ("coordinator", "en"): "Coordinator guide",
    ("coordinator", "zh-hans"): "协调员指南",
    ("researcher", "en"): "Researcher guide",
    ("researcher", "zh-hans"): "研究人员指南",
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    ("role", "guide"),
    [(EXPERT, "expert"), (COORDINATOR, "coordinator"), (RESEARCHER, "researcher")],
)
def test_help_opens_the_roles_guide(e2e, page, language, role, guide):
    user_create_with_role(username="reader", password=PASSWORD, role=role)
    set_language(page, e2e, language)
    login(page, e2e, "reader", PASSWORD)
    page.get_by_role("navigation", name=re.compile("Main|主")).get_by_role(
        "link", name=re.compile("^(Help|帮助)$")
    ).click()
    expect(page).to_have_url(re.compile(f"/help/{guide}/$"))
    current = page.locator(".help-nav a[aria-current='page']")
    expect(current).to_have_text(GUIDE_TITLES[(guide, language)])
    # The guide itself is in the reader's language, not English with a notice.
    expect(page.locator("article.help-document")).to_have_attribute("lang", language)
    expect(page.locator("article.help-document .notice")).to_have_count(0)
    expect(page.locator("article.help-document h1")).not_to_be_empty()
    found = axe_violations(page)
    assert not found, describe(found)
    screenshot(page, f"help-{guide}-{language}")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_question_mark_opens_the_statistic(e2e, page, data, language):  # noqa: F811
    round_, run = data
    user_create_with_role(username="res", password=PASSWORD, role=RESEARCHER)
    set_language(page, e2e, language)
    login(page, e2e, "res", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/hb/agreement/?round={round_.pk}&run={run.pk}")
    page.locator("tr[data-stat='cohen_kappa'] a.help-link").click()
    expect(page).to_have_url(re.compile(r"/help/researcher/#cohen_kappa$"))
    target = page.locator("[id='cohen_kappa']")
    expect(target).to_be_in_viewport()
    expect(target).to_contain_text("cohen_kappa")
    screenshot(page, f"help-statistic-{language}")
