"""Three demo experts each complete their share of the demo round in the browser; the
coordinator then sees the consensus and the progress."""

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from annotation.models import Assignment, ReviewRound
from leaderboard.management.commands.load_demo import DEMO_PASSWORD, DEMO_ROUND
from tests.e2e.conftest import login, screenshot

pytestmark = pytest.mark.browser


def test_three_experts_complete_the_demo_round(e2e, page):
    call_command("load_demo")
    round_ = ReviewRound.objects.get(name=DEMO_ROUND)
    items = round_.items.count()
    for expert in ("expert1", "expert2", "expert3"):
        page.context.clear_cookies()
        login(page, e2e, expert, DEMO_PASSWORD)
        page.goto(f"{e2e.url}/review/")
        page.get_by_role("button", name="Next item").click()
        while "/review/work/" in page.url:
            expect(page.locator(".vote-row").first).to_be_focused()
            for position in range(page.locator(".vote-row").count()):
                page.keyboard.press("1" if position % 2 == 0 else "0")
            current = page.url
            page.keyboard.press("Enter")
            page.wait_for_url(lambda url, current=current: url != current)
        done = "You have finished your share of this round. Thank you!"
        expect(page.get_by_text(done)).to_be_visible()
        expect(page.get_by_role("button", name="Next item")).to_have_count(0)
    assert Assignment.objects.filter(item__round=round_, status="submitted").count() == 3 * items

    page.context.clear_cookies()
    login(page, e2e, "coordinator", DEMO_PASSWORD)
    page.goto(f"{e2e.url}/review/manage/rounds/{round_.pk}/")
    expect(page.get_by_text(f"{3 * items} of {3 * items} ratings submitted.")).to_be_visible()
    screenshot(page, "review-dashboard")
    page.get_by_role("link", name="Votes and consensus").click()
    expect(page.get_by_text("0 units are ties and have no consensus.")).to_be_visible()
    expect(page.locator("table.data tbody tr")).to_have_count(
        sum(item.rubric_version.criteria.count() for item in round_.items.all())
    )
