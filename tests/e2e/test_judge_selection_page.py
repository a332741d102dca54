"""The judge selection page in a real browser, in both languages: three judges run against
the simulator on one round, the table, the cost/agreement chart drawn as inline SVG, and
no serious or critical accessibility issue."""

import pytest
from playwright.sync_api import expect

from accounts.roles import RESEARCHER
from accounts.services import user_create_with_role
from tests.conftest import PASSWORD
from tests.e2e.accessibility import axe_violations, describe, horizontal_overflow
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language
from tests.judging.conftest import judged_benchmark, sim_config, simulator  # noqa: F401
from tests.leaderboard.test_judge_selection import judged_round  # noqa: F401

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_page_compares_the_judges(e2e, page, judged_round, language):  # noqa: F811
    round_, _runs = judged_round
    user_create_with_role(username="res", password=PASSWORD, role=RESEARCHER)
    page.set_viewport_size({"width": 1366, "height": 768})
    set_language(page, e2e, language)
    login(page, e2e, "res", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/hb/agreement/?round={round_.pk}")
    page.locator("#judge-selection-link a").click()
    expect(page.locator("#judges tbody tr")).to_have_count(3)
    expect(page.locator("#choice-heading")).to_contain_text("small v1")
    expect(page.locator("svg.cost-chart g.judge")).to_have_count(2)
    expect(page.locator("svg.cost-chart g.judge.cheapest text")).to_have_text("small v1")
    expect(page.locator("#unplaced")).to_contain_text("free v1")
    screenshot(page, f"judge-selection-{language}")
    found = axe_violations(page)
    assert not found, describe(found)
    assert horizontal_overflow(page) == 0
