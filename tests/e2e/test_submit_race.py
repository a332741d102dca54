"""Submitting in the browser: the page's unload beacon (an autosave with the active seconds
not yet sent) must not reach the server after the submit and reopen the item.

The browser holds any autosave sent after the submit until the next item has opened, which
is the order the race produced for experts: their submitted item went back to "in
progress" and the next submit sent them back to it."""

import pytest
from playwright.sync_api import expect

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, Benchmark, System, Vote
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_rounds import round_open
from tests.conftest import PASSWORD, jsonl_bytes, lines, question
from tests.e2e.conftest import login

pytestmark = pytest.mark.browser


def answer_all_and_submit(page) -> None:
    for key in ("1", "0", "1", "0"):
        page.keyboard.press(key)
    expect(page.locator("#autosave-status")).to_have_text("Saved.")
    # Work on after the last save, so the page holds active seconds it has not sent.
    page.mouse.move(10, 10)
    page.wait_for_timeout(2200)
    page.mouse.move(20, 20)


def test_the_submitted_item_stays_submitted_and_the_expert_moves_on(e2e, page):
    rows = [question(f"c{i}") for i in range(1, 5)]
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb")
    answers = [{"question_id": f"c{i}", "response": f"我听到了（{i}）。"} for i in range(1, 5)]
    responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name="S")
    expert = user_create_with_role(username="expert", password=PASSWORD, role=EXPERT)
    round_open(
        benchmark=Benchmark.objects.get(slug="hb"),
        name="R",
        systems=list(System.objects.all()),
        experts=[expert],
        fraction=1.0,
        raters_per_item=1,
    )

    submitting = {"now": False}
    late_autosaves, held = [], []

    def autosave_route(route, request):
        if submitting["now"]:
            late_autosaves.append(request.url)
            held.append(route)  # delivered only once the next item is open
        else:
            route.continue_()

    page.context.route("**/autosave/", autosave_route)
    login(page, e2e, "expert", PASSWORD)
    page.get_by_role("button", name="Next item").click()
    page.wait_for_url("**/review/work/*/")
    first = Assignment.objects.get(expert=expert)
    first_url = page.url

    answer_all_and_submit(page)
    submitting["now"] = True
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url != first_url and "/review/work/" in url)
    expect(page.locator(".vote-row").first).to_be_focused()
    submitting["now"] = False
    first.refresh_from_db()
    submitted = (first.status, first.revision, first.draft, first.active_seconds)
    assert submitted[:3] == ("submitted", 1, {})
    for route in held:
        route.continue_()
    page.wait_for_timeout(500)  # give a released request the time to arrive

    first.refresh_from_db()
    assert (first.status, first.revision, first.draft, first.active_seconds) == submitted
    assert Vote.objects.filter(assignment=first).count() == 4

    second_url = page.url
    answer_all_and_submit(page)
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url not in (first_url, second_url) and "/review/work/" in url)
    assert Assignment.objects.filter(expert=expert, status="submitted").count() == 2
    # The page itself stopped its beacon: nothing was sent after the submit.
    assert late_autosaves == []
