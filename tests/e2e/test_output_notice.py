"""The notice that an endpoint refused structured output, in the browser: on the run page
and the judge configuration page, in both languages, free of serious accessibility issues."""

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR
from accounts.services import user_create_with_role
from judging.services.lane_pool import pool_run
from judging.services.runs import judge_run_start
from tests.conftest import PASSWORD
from tests.e2e.accessibility import axe_violations, describe
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language
from tests.judging.conftest import judged_benchmark, sim_config, simulator  # noqa: F401

pytestmark = pytest.mark.browser

SAYS = {
    "en": "This endpoint refused structured output",
    "zh-hans": "此接口拒绝了结构化输出",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_refusal_notice_is_shown_and_accessible(
    e2e,
    page,
    judged_benchmark,  # noqa: F811
    sim_config,  # noqa: F811
    simulator,  # noqa: F811
    language,
):
    simulator.configure(quirks="no_json_schema")
    benchmark, systems = judged_benchmark
    config = sim_config()
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=config)
    pool_run(run_id=run.pk, lanes=2)
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)
    set_language(page, e2e, language)
    login(page, e2e, "coord", PASSWORD)
    for name, path in (
        ("run", f"/judging/runs/{run.pk}/"),
        ("config", f"/judging/configs/{config.pk}/"),
    ):
        page.goto(f"{e2e.url}{path}")
        notice = page.locator(".output-notice").first
        expect(notice).to_contain_text(SAYS[language])
        expect(notice).to_contain_text("json_schema")
        found = axe_violations(page)
        assert not found, describe(found)
        screenshot(page, f"output-notice-{name}-{language}")
