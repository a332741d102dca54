"""Pages under the Content-Security-Policy (scripts from the site's files only): the pickers
that submit on change work through the static script, Swagger UI runs, and a large upload
is imported in the background with its outcome shown on the import page. The e2e fixture
fails any test whose pages the browser had to block something on."""

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR
from accounts.services import user_create_with_role
from annotation.models import Case, ImportJob
from annotation.services.benchmark_import import benchmark_import
from tests.conftest import PASSWORD, jsonl_bytes, lines, question
from tests.e2e.conftest import login, screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def coordinator():
    return user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)


def test_pickers_submit_on_change_without_inline_handlers(e2e, page, coordinator):
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")
    changed = question("c1", rubric=[{"dimension": "温暖", "score": 2, "content": "语气温和"}])
    benchmark_import(chunks=lines(jsonl_bytes([changed])), benchmark_slug="hb")
    login(page, e2e, "coord", PASSWORD)

    page.goto(f"{e2e.url}/benchmarks/hb/cases/c1/")
    expect(page.get_by_text("语气温和")).to_be_visible()
    page.locator("#version-select").select_option("1")
    page.wait_for_url("**/cases/c1/?version=1")
    expect(page.get_by_text("指出用户的疲惫和压力感")).to_be_visible()

    page.locator("#language-select").select_option("zh-hans")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    page.locator("#language-select").select_option("en")
    expect(page.locator("html")).to_have_attribute("lang", "en")


def test_the_api_docs_run_under_the_policy(e2e, page, coordinator):
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/api/docs/")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Concord API")
    expect(page.locator(".opblock-tag-section").first).to_be_visible()


def test_a_large_upload_is_imported_in_the_background_from_the_page(
    e2e, page, coordinator, settings, tmp_path
):
    settings.IMPORT_ROOT = tmp_path / "imports"
    settings.IMPORT_BACKGROUND_BYTES = 4000
    data = jsonl_bytes([question(f"q{i:03d}") for i in range(20)])
    assert len(data) > settings.IMPORT_BACKGROUND_BYTES
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/import/")
    expect(page.get_by_text("are imported in the background")).to_be_visible()
    page.get_by_label("Benchmark slug").first.fill("big")
    page.get_by_label("Question file (JSON Lines)").set_input_files(
        {"name": "题目.jsonl", "mimeType": "application/x-ndjson", "buffer": data}
    )
    page.get_by_role("button", name="Import questions").click()
    result = page.locator("#import-result")
    expect(result).to_contain_text("Background import of 题目.jsonl")
    expect(result).to_contain_text("20 cases in the file, 20 new")
    expect(result.locator(".import-job-status")).to_have_text("imported")
    screenshot(page, "import-background")
    assert Case.objects.filter(benchmark__slug="big").count() == 20
    job = ImportJob.objects.get()

    page.goto(f"{e2e.url}/import/")
    row = page.locator("tr.import-job-row")
    expect(row).to_contain_text("题目.jsonl")
    expect(row).to_contain_text("imported")
    row.get_by_role("link", name="题目.jsonl").click()
    page.wait_for_url(f"**/import/jobs/{job.pk}/")
    expect(page.locator("main")).to_contain_text("20 cases in the file, 20 new")
