"""Forms read as one column: each field's errors sit under that field (never under the one
before it), and each label sits above its own input, all inputs aligned on one left edge."""

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR, EXPERT
from accounts.services import user_create_with_role
from annotation.services.people import person_invite
from tests.conftest import PASSWORD
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language
from tests.e2e.test_people import a_round

pytestmark = pytest.mark.browser

BOX = "(e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.bottom]; }"


@pytest.mark.parametrize("language", LANGUAGES)
def test_sign_up_errors_sit_under_their_own_field(e2e, page, language):
    coordinator = user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    invitation = person_invite(actor=coordinator, roles=[EXPERT], specialities=[], days=2)
    set_language(page, e2e, language)
    page.goto(f"{e2e.url}/join/{invitation.token}/")
    page.locator("#id_username").fill("wang")
    page.locator("#id_password1").fill("123")
    page.locator("#id_password2").fill("123")
    page.locator("main form button[type=submit]").click()
    error = page.locator("#id_password1_error")
    expect(error).to_be_visible()
    _left, error_top, _bottom = error.evaluate(BOX)
    _left, _top, password_bottom = page.locator("#id_password1").evaluate(BOX)
    _left, again_top, _bottom = page.locator("label[for=id_password2]").evaluate(BOX)
    _left, _top, username_bottom = page.locator("#id_username").evaluate(BOX)
    _left, password_label_top, _bottom = page.locator("label[for=id_password1]").evaluate(BOX)
    # Below the password box and above the next field; nothing between Username and Password.
    assert password_bottom <= error_top < again_top
    assert password_label_top - username_bottom < 40
    assert page.locator("#id_password1").get_attribute("aria-describedby") == "id_password1_error"
    screenshot(page, f"join-errors-{language}")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_new_round_form_is_aligned(e2e, page, language):
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    a_round()
    set_language(page, e2e, language)
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/review/manage/rounds/new/")
    controls = page.locator(
        "form.card .field-group :is(input:not([type=hidden]):not([type=checkbox])"
        ":not([type=radio]), select, textarea)"
    )
    assert controls.count() >= 4
    lefts = set()
    for index in range(controls.count()):
        control = controls.nth(index)
        control_id = control.get_attribute("id")
        label = page.locator(f"label[for='{control_id}']")
        left, top, _bottom = control.evaluate(BOX)
        label_left, _top, label_bottom = label.evaluate(BOX)
        assert abs(label_left - left) < 2, f"{control_id}: label beside its input"
        assert label_bottom <= top + 1, f"{control_id}: label not above its input"
        lefts.add(round(left))
    assert len(lefts) == 1, f"inputs start at {sorted(lefts)}"
    screenshot(page, f"round-new-{language}")
