"""The calibration loop in a real browser, in both languages: a round split when it opened,
few-shot examples proposed from its calibration disagreements (one reworded, one dropped),
a new judge version, its run against a simulator that learns from examples, and judge
selection comparing it with its parent on the held-out items only."""

import pytest
from playwright.sync_api import expect

from annotation.models import ReviewItem
from judging.models import JudgeConfig
from tests.conftest import PASSWORD
from tests.e2e.accessibility import axe_violations, describe, horizontal_overflow
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language
from tests.judging.conftest import simulator  # noqa: F401
from tests.judging.test_fewshot import parent, run_of, split_round  # noqa: F401

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_calibration_loop(
    e2e,
    page,
    split_round,  # noqa: F811
    parent,  # noqa: F811
    simulator,  # noqa: F811
    coordinator,
    language,
):
    page.set_viewport_size({"width": 1366, "height": 900})
    set_language(page, e2e, language)
    login(page, e2e, "coord", PASSWORD)
    # 1. The round's split, as its page shows it.
    assert ReviewItem.objects.filter(round=split_round, part="held_out").count() == 12
    # 2. Proposals from the calibration disagreements, edited.
    page.goto(f"{e2e.url}/judging/configs/{parent.config_id}/")
    page.locator("#fewshot-link").click()
    page.locator("#fewshot-round-select").select_option(str(split_round.pk))
    page.locator("#fewshot-round button[type=submit]").click()
    examples = page.locator("fieldset.fewshot-example")
    expect(examples.first).to_be_visible()
    shown = examples.count()
    assert shown >= 4
    examples.first.locator("textarea").fill("The experts: the response names the tiredness.")
    examples.last.locator("input[type=checkbox]").uncheck()
    page.locator("#fewshot-note").fill("few-shot examples from R")
    screenshot(page, f"fewshot-proposals-{language}")
    found = axe_violations(page)
    assert not found, describe(found)
    assert horizontal_overflow(page) == 0
    # 3. The new judge version.
    page.locator("#fewshot-make").click()
    expect(page.locator("#version-2")).to_be_visible()
    expect(page.locator("#version-2 .origin")).to_contain_text(split_round.name)
    derived = JudgeConfig.objects.get(name="sim").versions.get(number=2)
    assert len(derived.examples) == shown - 1
    assert derived.examples[0]["explanation"] == "The experts: the response names the tiredness."
    expect(page.locator(".version-examples")).to_be_visible()
    screenshot(page, f"fewshot-version-{language}")
    # 4. A run of it, against a simulator that learns from examples.
    simulator.configure(learns_from_examples=0.9)
    run = run_of(derived, split_round)
    page.goto(f"{e2e.url}/judging/runs/{run.pk}/")
    expect(page.locator(".badge.status-finished")).to_be_visible()
    # 5. Judge selection: the derived version against its parent, on held-out items only.
    page.goto(f"{e2e.url}/benchmarks/hb/agreement/judges/?round={split_round.pk}")
    row = page.locator('#calibration-to-held-out tr[data-derived="sim v2"]')
    expect(row).to_be_visible()
    expect(row).to_contain_text("sim v1")
    expect(row).to_contain_text("improved" if language == "en" else "有改进")
    row.scroll_into_view_if_needed()
    screenshot(page, f"fewshot-selection-{language}")
