"""The adjudication item page in a browser, in both languages: the split criterion is
marked, the catastrophic tag shows, the top bar links to the queue, and the decision brings
the coordinator back to the queue as they had filtered it."""

import pytest
from playwright.sync_api import expect

from tests.annotation.review.conftest import experts, review_data, review_round  # noqa: F401
from tests.annotation.review.test_adjudication_queue import SPLIT_2_1_CATASTROPHIC
from tests.annotation.review.test_coordinator_pages import complete_round
from tests.conftest import PASSWORD
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_split_is_marked_and_the_filter_kept(e2e, page, language, review_round, experts):  # noqa: F811
    from accounts.roles import COORDINATOR
    from accounts.services import user_create_with_role

    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    complete_round(review_round, experts[:3], SPLIT_2_1_CATASTROPHIC)
    set_language(page, e2e, language)
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/review/manage/rounds/")
    page.locator("header.topbar nav a[href='/review/manage/adjudication/']").click()
    page.locator("select[name=round]").select_option(str(review_round.pk))
    page.wait_for_url(f"**round={review_round.pk}*")
    page.locator("select[name=show]").select_option("splits")
    page.wait_for_url("**show=splits*")
    page.locator("table.data tbody a").first.click()
    split = page.locator(".vote-row.split")
    expect(split).to_have_count(1)
    expect(split.locator(".split-mark")).to_be_visible()
    expect(split.locator(".tag.catastrophic")).to_be_visible()
    screenshot(page, f"adjudicate-{language}")
    page.locator("#adjudication-note").fill("看过了")
    page.locator("main form[method=post] button[type=submit]").click()
    page.wait_for_url(f"**/review/manage/adjudication/?round={review_round.pk}&show=splits")
    expect(page.locator("select[name=show]")).to_have_value("splits")
