"""A coordinator invites an expert from the People page; the expert signs up with the link
and annotates an item, in each interface language. Elements are found by id, name and
attributes, never by visible text."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from accounts.roles import COORDINATOR, EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, Benchmark, System, Vote
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_rounds import round_open
from core.models import AuditEvent
from tests.conftest import PASSWORD, jsonl_bytes, lines, question
from tests.e2e.accessibility import axe_violations, describe
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language

pytestmark = pytest.mark.browser

NEW_PASSWORD = "quiet-harbour-5172"


def a_round():
    rows = [question(f"c{i}", primary_scene="职场心理") for i in range(1, 4)]
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb")
    answers = [{"question_id": f"c{i}", "response": f"我在听（{i}）。"} for i in range(1, 4)]
    responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name="S")
    return round_open(
        benchmark=Benchmark.objects.get(slug="hb"),
        name="R",
        systems=list(System.objects.all()),
        experts=[user_create_with_role(username="first", password=PASSWORD, role=EXPERT)],
        fraction=1.0,
        raters_per_item=1,
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_invite_sign_up_and_annotate(e2e, page, browser, language):
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    round_ = a_round()
    set_language(page, e2e, language)
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/people/")
    page.locator("input[name=roles][value='Expert']").check()
    page.locator("#id_specialities").fill("职场心理")
    page.locator("#id_days").fill("2")
    page.locator("#id_note").fill("Dr Wang")
    page.locator("form[action$='/people/invite/'] button[type=submit]").click()
    link_field = page.locator("#invite-link")
    expect(link_field).to_be_visible()
    link = link_field.input_value()
    assert link.startswith(f"{e2e.url}/join/")
    copy = page.locator("button[data-copy-target='invite-link']")
    before = copy.text_content()
    copy.click()
    expect(copy).not_to_have_text(before)
    screenshot(page, f"people-invite-{language}")
    problems = {"people": axe_violations(page)}

    # The invitee, in a browser of their own.
    context = browser.new_context()
    invitee = context.new_page()
    invitee.context.add_cookies([{"name": "django_language", "value": language, "url": e2e.url}])
    invitee.goto(link)
    problems["join"] = axe_violations(invitee)
    invitee.locator("#id_username").fill("wang")
    invitee.locator("#id_password1").fill("123")
    invitee.locator("#id_password2").fill("123")
    invitee.locator("main form button[type=submit]").click()
    expect(invitee.locator(".errorlist").first).to_be_visible()  # too short, too common
    invitee.locator("#id_password1").fill(NEW_PASSWORD)
    invitee.locator("#id_password2").fill(NEW_PASSWORD)
    invitee.locator("main form button[type=submit]").click()
    invitee.wait_for_url("**/review/")
    wang = get_user_model().objects.get(username="wang")
    assert list(wang.groups.values_list("name", flat=True)) == [EXPERT]

    # The coordinator puts the new expert in the round; the expert annotates an item.
    round_.experts.add(wang)
    invitee.reload()
    invitee.locator(f"form[action$='/review/rounds/{round_.pk}/next/'] button").click()
    invitee.wait_for_url("**/review/work/*/")
    expect(invitee.locator(".vote-row").first).to_be_focused()
    for key in ("1", "0", "1", "0"):
        invitee.keyboard.press(key)
    first = invitee.url
    invitee.keyboard.press("Enter")
    invitee.wait_for_url(lambda url: url != first)
    done = Assignment.objects.get(expert=wang, status="submitted")
    assert Vote.objects.filter(assignment=done).count() == 4
    screenshot(invitee, f"people-after-sign-up-{language}")

    # The new expert's page, as the coordinator sees it.
    page.goto(f"{e2e.url}/people/{wang.pk}/")
    expect(page.locator("#id_specialities")).to_have_value("职场心理")
    problems["person"] = axe_violations(page)
    assert not any(problems.values()), {k: describe(v) for k, v in problems.items() if v}

    # The link is spent: opening it again says so.
    again = context.new_page()
    response = again.goto(link)
    assert response.status == 410
    context.close()
    assert set(AuditEvent.objects.values_list("action", flat=True)) >= {
        "people.invited",
        "people.invitation_used",
    }
