"""Browser tests: Playwright drives Debian's chromium against Django's live server."""

import os
import shutil
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in the test thread; the ORM calls the tests make
# to arrange data are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"


@pytest.fixture(scope="session")
def browser_type_launch_args():
    if not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make test does it)")
    return {
        "executable_path": CHROMIUM,
        "args": [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    }


@pytest.fixture
def e2e(django_db_serialized_rollback, live_server, page):
    """A live server with a browser page; data written by the test is visible to both and
    the migrated data (the taxonomy) is restored afterwards."""
    page.set_default_timeout(10_000)
    return live_server


def login(page, live_server, username: str, password: str) -> None:
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/login/" not in url)


def screenshot(page, name: str) -> None:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"{name}.png"), full_page=True)
