"""Publishing a leaderboard asks for confirmation, the live board then says it is published,
and the published page gives its numbers in one form (the third walk's finding 8), in both
languages."""

import re

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR
from accounts.services import user_create_with_role
from leaderboard.models import GateEvaluation, LeaderboardSnapshot
from tests.conftest import PASSWORD
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - shared fixture

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("language", LANGUAGES)
def test_publishing_is_confirmed_and_the_board_says_so(e2e, page, data, language):  # noqa: F811
    round_, run = data
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    set_language(page, e2e, language)
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/hb/agreement/?round={round_.pk}&run={run.pk}")
    page.locator("form[action$='/agreement/gate/'] button[type=submit]").click()
    page.wait_for_load_state()
    assert GateEvaluation.objects.get().passed

    page.goto(f"{e2e.url}/benchmarks/hb/leaderboard/?run={run.pk}")
    expect(page.locator("#unpublished")).to_be_visible()
    publish = page.locator("form[action$='/leaderboard/publish/'] button[type=submit]")
    publish.click()  # not confirmed: the browser asks for the box, nothing is sent
    assert not LeaderboardSnapshot.objects.exists()
    expect(page.locator("#publish-confirm")).to_be_visible()
    screenshot(page, f"publish-confirm-{language}")
    page.locator("#publish-confirm").check()
    publish.click()
    page.wait_for_url("**/leaderboard/published/*/")
    snapshot = LeaderboardSnapshot.objects.get()
    validated = page.locator("#validated").inner_text()
    # Agreement and its interval in one form: percentages, no bare decimals.
    assert "75.0%" in validated and not re.search(r"\b0\.\d{3}\b", validated)
    screenshot(page, f"published-{language}")

    page.goto(f"{e2e.url}/benchmarks/hb/leaderboard/?run={run.pk}")
    expect(page.locator("#published-as")).to_contain_text(f"#{snapshot.pk}")
    expect(page.locator("#unpublished")).to_have_count(0)
