"""A coordinator closes a review round through its confirmation page, which lists the work
closing stops, then reopens it, in each interface language. Elements are found by id,
name and attributes, never by visible text."""

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR
from annotation import audit_actions
from annotation.models import Assignment, ReviewRound
from annotation.services.review_assignment import assignment_next
from core.models import AuditEvent
from tests.conftest import PASSWORD
from tests.e2e.accessibility import axe_violations, describe
from tests.e2e.conftest import LANGUAGES, login, set_language
from tests.e2e.test_people import a_round

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("language", LANGUAGES)
def test_close_confirm_and_reopen(e2e, page, language):
    from accounts.services import user_create_with_role

    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    round_ = a_round()
    started = assignment_next(expert=round_.experts.get(), round_=round_)
    Assignment.objects.filter(pk=started.pk).update(started=started.assigned, status="in_progress")
    set_language(page, e2e, language)
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/review/manage/rounds/{round_.pk}/")
    page.locator(f"a[href='/review/manage/rounds/{round_.pk}/close/']").click()
    page.wait_for_url(f"**/rounds/{round_.pk}/close/")
    expect(page.locator("main table code")).to_have_text(started.item.code)
    violations = axe_violations(page)
    assert not violations, describe(violations)
    # Without the box ticked nothing closes: the page says why.
    page.locator("main form button[type=submit]").click()
    expect(page.locator("#confirm-error")).to_be_visible()
    assert ReviewRound.objects.get(pk=round_.pk).status == "open"
    page.locator("input[name=confirm]").check()
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(f"**/rounds/{round_.pk}/")
    expect(page.locator("h1 .badge.status-closed")).to_be_visible()
    assert ReviewRound.objects.get(pk=round_.pk).status == "closed"
    page.locator(f"form[action$='/rounds/{round_.pk}/reopen/'] button").click()
    expect(page.locator("h1 .badge.status-open")).to_be_visible()
    assert ReviewRound.objects.get(pk=round_.pk).status == "open"
    actions = list(
        AuditEvent.objects.filter(action__startswith="review.round_")
        .order_by("pk")
        .values_list("action", flat=True)
    )
    assert actions[-2:] == [audit_actions.ROUND_CLOSED, audit_actions.ROUND_REOPENED]
