import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR
from accounts.services import user_create_with_role
from annotation.models import RubricVersion
from annotation.services.benchmark_import import benchmark_import
from tests.conftest import PASSWORD, jsonl_bytes, lines, question
from tests.e2e.conftest import after_htmx_swap, login, screenshot

pytestmark = pytest.mark.browser


def test_edit_a_criterion_publish_and_see_the_change_in_the_diff(e2e, page):
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    login(page, e2e, "coord", PASSWORD)

    page.goto(f"{e2e.url}/benchmarks/hb/cases/c1/rubric/")
    expect(page.get_by_text("最近加班太多了")).to_be_visible()  # the dialogue beside the editor
    text = page.get_by_label("Text of criterion 2")
    text.fill("用一个开放式问题询问最近加班的情况")
    weight = page.get_by_label("Weight of criterion 2")
    weight.fill("6")
    expect(page.locator("#autosave-status")).to_contain_text("Draft saved at")
    screenshot(page, "rubric-editor")

    page.get_by_label("Change note (what you changed and why)").fill("问题更具体，权重提高")
    page.get_by_role("button", name="Publish as version 2").click()
    page.wait_for_url("**/rubric/history/")

    changed = page.locator("table.diff tr.diff-changed")
    expect(changed).to_have_count(1)
    expect(changed.locator("mark.weight-change")).to_have_text(["4", "6"])  # old, new
    expect(changed).to_contain_text("用一个开放式问题询问最近加班的情况")
    expect(changed).to_contain_text("用开放式问题询问加班的具体情况")  # version 1's wording
    screenshot(page, "rubric-history")
    v1, v2 = RubricVersion.objects.order_by("number")
    assert v1.criteria.get(position=2).text == "用开放式问题询问加班的具体情况"
    assert (v2.criteria.get(position=2).weight, v2.note) == (6, "问题更具体，权重提高")


def test_row_actions_and_validation_messages_without_reloading(e2e, page):
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/hb/cases/c1/rubric/")
    page.evaluate("window.__sameDocument = true")

    after_htmx_swap(page, page.get_by_role("button", name="Add a criterion").click)
    expect(page.get_by_label("Text of criterion 5")).to_be_visible()
    page.get_by_label("Weight of criterion 5").fill("0")
    expect(page.locator(".editor-row").nth(4)).to_contain_text("A weight of 0 counts for nothing")
    after_htmx_swap(page, page.get_by_role("button", name="Move criterion 5 up").click)
    expect(page.locator(".editor-row").nth(3)).to_contain_text("A weight of 0 counts for nothing")
    page.get_by_role("button", name="Remove criterion 4").click()
    expect(page.locator(".editor-row")).to_have_count(4)
    assert page.evaluate("window.__sameDocument") is True  # no page reload happened
