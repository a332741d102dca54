"""A researcher sees the gate and downloads the tidy file; a coordinator cannot publish a
leaderboard from a judge that failed the gate."""

import csv
import io
from pathlib import Path

import pytest
from playwright.sync_api import expect

from accounts.roles import COORDINATOR, RESEARCHER
from accounts.services import user_create_with_role
from leaderboard.models import GatePolicy, LeaderboardSnapshot
from tests.conftest import PASSWORD
from tests.e2e.conftest import login, screenshot
from tests.leaderboard.test_agreement_report import data  # noqa: F401 - shared fixture

pytestmark = pytest.mark.browser


def test_a_failed_gate_blocks_publishing_and_the_tidy_file_downloads(e2e, page, data):  # noqa: F811
    round_, run = data
    GatePolicy.objects.create(benchmark=run.benchmark, threshold=0.8)  # 75% will not pass
    user_create_with_role(username="res", password=PASSWORD, role=RESEARCHER)
    user_create_with_role(username="coord", password=PASSWORD, role=COORDINATOR)

    login(page, e2e, "res", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/hb/agreement/?round={round_.pk}&run={run.pk}")
    expect(page.get_by_role("heading", name="Gate not passed")).to_be_visible()
    expect(page.locator("#agreement-value")).to_have_text("75.0%")
    page.get_by_role("button", name="Record this gate evaluation").click()
    expect(page.get_by_text("Gate evaluation recorded: not passed.")).to_be_visible()
    screenshot(page, "agreement-report")
    page.goto(f"{e2e.url}/benchmarks/hb/exports/?round={round_.pk}&run={run.pk}")
    with page.expect_download() as download:
        page.locator("a[href*='/exports/tidy.csv?']").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    assert len(rows) == 1 + 2 * 4 * 3  # header + responses x criteria x raters

    page.context.clear_cookies()
    login(page, e2e, "coord", PASSWORD)
    page.goto(f"{e2e.url}/benchmarks/hb/leaderboard/?run={run.pk}")
    # The board says why it cannot be published before anyone clicks.
    expect(page.get_by_role("button", name="Publish this leaderboard")).to_be_disabled()
    expect(page.locator("#gate-state")).to_contain_text("judge v1 failed the gate: evaluation #")
    expect(page.locator("#gate-state")).to_contain_text("agreement 75.0% on 8 units")
    screenshot(page, "leaderboard")
    assert not LeaderboardSnapshot.objects.exists()
