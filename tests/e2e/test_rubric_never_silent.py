"""The rubric editor never fails silently: an invalid weight is flagged on its row as it is
typed, the save status says what is wrong, Publish is disabled with the reason beside it,
and the value is still there after a reload (the draft keeps rows as typed)."""

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR
from accounts.services import user_create_with_role
from annotation.models import RubricDraft
from annotation.services.benchmark_import import benchmark_import
from tests.conftest import PASSWORD, jsonl_bytes, lines, question
from tests.e2e.conftest import login

pytestmark = pytest.mark.browser


def test_an_out_of_range_weight_is_flagged_saved_and_blocks_publishing(e2e, page):
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/hb/cases/c1/rubric/")
    publish = page.get_by_role("button", name="Publish as version 2")
    expect(publish).to_be_enabled()

    page.get_by_label("Weight of criterion 3").fill("11")
    row = page.locator(".editor-row").nth(2)
    expect(row).to_contain_text("out of range")
    expect(page.get_by_label("Weight of criterion 3")).to_have_attribute("aria-invalid", "true")
    status = page.locator("#autosave-status")
    expect(status).to_contain_text("Draft saved at")
    expect(status).to_contain_text(
        "cannot be published yet: Criterion 3: The weight 11 is out of range"
    )
    expect(publish).to_be_disabled()
    expect(page.locator("#publish-blocked")).to_contain_text("Criterion 3")
    expect(page.locator("#publish-blocked")).to_be_visible()
    assert RubricDraft.objects.get().rows[2]["weight"] == 11

    page.reload()
    expect(page.get_by_label("Weight of criterion 3")).to_have_value("11")
    expect(page.locator(".editor-row").nth(2)).to_contain_text("out of range")
    expect(page.get_by_role("button", name="Publish as version 2")).to_be_disabled()

    page.get_by_label("Weight of criterion 3").fill("5")
    expect(page.locator("#autosave-status")).not_to_contain_text("cannot be published")
    expect(page.get_by_role("button", name="Publish as version 2")).to_be_enabled()
    expect(page.locator("#publish-blocked")).to_be_hidden()


def test_a_failed_save_is_said_on_the_page(e2e, page):
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/hb/cases/c1/rubric/")
    page.route("**/rubric/draft/", lambda route: route.abort())
    page.get_by_label("Text of criterion 1").fill("新的措辞")
    status = page.locator("#autosave-status")
    expect(status).to_contain_text("Not saved")
    expect(status).not_to_contain_text("Draft saved at")
