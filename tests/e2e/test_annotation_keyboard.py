import pytest
from playwright.sync_api import expect

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, System, Vote
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_rounds import round_open
from tests.conftest import PASSWORD, jsonl_bytes, lines, question
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language

pytestmark = pytest.mark.browser


def test_a_whole_item_by_keyboard_with_a_reload_in_the_middle(e2e, page):
    rows = [question(f"c{i}") for i in range(1, 5)]
    summary = benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb")
    answers = [
        {"question_id": f"c{i}", "response": f"听起来你很累了（{i}）。"} for i in range(1, 5)
    ]
    responses_import(
        chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name="SecretSys"
    )
    expert = user_create_with_role(username="expert", password=PASSWORD, role=EXPERT)
    from annotation.models import Benchmark

    round_open(
        benchmark=Benchmark.objects.get(slug="hb"),
        name="R",
        systems=list(System.objects.all()),
        experts=[expert],
        fraction=1.0,
        raters_per_item=1,
    )
    assert summary.cases == 4
    login(page, e2e, "expert", PASSWORD)
    page.get_by_role("button", name="Next item").click()
    page.wait_for_url("**/review/work/*/")
    first_url = page.url
    expect(page.locator(".vote-row").first).to_be_focused()

    page.keyboard.press("1")  # criterion 1: hit, focus moves on
    page.keyboard.press("0")  # criterion 2: miss
    expect(page.locator("#autosave-status")).to_have_text("Saved.")
    page.reload()
    expect(page.locator("input[type=radio][value='1']").nth(0)).to_be_checked()
    expect(page.locator("input[type=radio][value='0']").nth(1)).to_be_checked()
    expect(page.locator(".vote-row").nth(2)).to_be_focused()  # the first unanswered one

    page.keyboard.press("y")  # criterion 3: hit
    page.keyboard.press("e")  # a note for criterion 4
    page.keyboard.type("回应里没有说教。")
    page.keyboard.press("Escape")
    page.keyboard.press("n")  # criterion 4: miss
    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_visible()
    screenshot(page, "annotation")
    page.keyboard.press("Escape")  # closes the help; focus returns to criterion 4
    page.keyboard.press("k")
    expect(page.locator(".vote-row").nth(2)).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url != first_url and "/review/work/" in url)

    done = Assignment.objects.get(status="submitted")
    votes = dict(Vote.objects.filter(assignment=done).values_list("criterion__position", "hit"))
    assert votes == {1: True, 2: False, 3: True, 4: False}
    assert Vote.objects.get(assignment=done, criterion__position=4).note == "回应里没有说教。"
    assert "SecretSys" not in page.content()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("panel", ["guidelines", "help"])
@pytest.mark.parametrize("close_with", ["Escape", "button"])
def test_keys_work_after_a_panel_opened_with_the_mouse(e2e, page, language, panel, close_with):
    """Open the Guidelines or the Keyboard panel by clicking, close it: focus is back on
    the criterion, so 1 and 0 answer it and Enter submits (not re-opens the panel)."""
    rows = [question("c1"), question("c2")]
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb")
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": f"c{i}", "response": "好。"} for i in (1, 2)])),
        benchmark_slug="hb",
        system_name="S",
    )
    expert = user_create_with_role(username="expert", password=PASSWORD, role=EXPERT)
    from annotation.models import Benchmark

    round_ = round_open(
        benchmark=Benchmark.objects.get(slug="hb"),
        name="R",
        systems=list(System.objects.all()),
        experts=[expert],
        fraction=1.0,
        raters_per_item=1,
    )
    from annotation.services.review_assignment import assignment_next

    assignment = assignment_next(expert=expert, round_=round_)
    set_language(page, e2e, language)
    login(page, e2e, "expert", PASSWORD)
    page.goto(f"{e2e.url}/review/work/{assignment.pk}/")
    count = page.locator(".vote-row").count()
    expect(page.locator(".vote-row").first).to_be_focused()

    opener = "#open-guidelines" if panel == "guidelines" else "#open-help"
    page.locator(opener).click()
    expect(page.locator(f"#{panel}")).to_be_visible()
    if close_with == "Escape":
        page.keyboard.press("Escape")
    else:
        page.locator(f"#{panel} .close-panel").click()
    expect(page.locator(f"#{panel}")).to_be_hidden()
    expect(page.locator(".vote-row").first).to_be_focused()

    for index in range(count):  # every criterion by key, alternately met and not met
        page.keyboard.press("1" if index % 2 == 0 else "0")
    for index in range(count):
        value = "1" if index % 2 == 0 else "0"
        expect(page.locator(f".vote-row >> nth={index} >> input[value='{value}']")).to_be_checked()

    # Opened and closed again after the last answer: Enter submits, not re-opens it.
    page.locator(opener).click()
    page.keyboard.press("Escape")
    expect(page.locator(f"#{panel}")).to_be_hidden()
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: f"/review/work/{assignment.pk}/" not in url)
    expect(page.locator(f"#{panel}")).to_be_hidden()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert Vote.objects.filter(assignment=assignment).count() == count
