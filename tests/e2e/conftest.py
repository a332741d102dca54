"""Browser tests: Playwright drives Debian's chromium against Django's live server."""

import os
import shutil
from pathlib import Path

import pytest

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


@pytest.fixture(scope="session", autouse=True)
def sync_orm_beside_playwright():
    # Playwright's sync API runs an event loop in the test thread; the ORM calls the tests
    # make (and the database teardown) are still plain synchronous calls.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def e2e(transactional_db, live_server, page):
    """A live server with a browser page; data written by the test is visible to both (the
    taxonomy and default prompts come back after each flush).

    Whatever the Content-Security-Policy blocks on any page the test opens (an inline
    script or handler, an injected style) fails the test: the browser reports each block
    on the console."""
    page.set_default_timeout(30_000)
    blocked: list[str] = []
    page.on(
        "console",
        lambda message: (
            blocked.append(f"{page.url}: {message.text}")
            if "Content Security Policy" in message.text
            else None
        ),
    )
    yield live_server
    assert not blocked, "blocked by the Content-Security-Policy:\n" + "\n".join(blocked)


LANGUAGES = ("en", "zh-hans")


def set_language(page, live_server, language: str) -> None:
    """Choose the interface language the way the switcher does: Django's language cookie."""
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )


def login(page, live_server, username: str, password: str) -> None:
    # By field ids, not label text, so the same call works in every interface language.
    page.goto(f"{live_server.url}/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(password)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(lambda url: "/login/" not in url)


def screenshot(page, name: str) -> None:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"{name}.png"), full_page=True)


def after_htmx_swap(page, action) -> None:
    """Do `action` (a click that makes htmx swap content) and wait until htmx has settled
    the new content, so the next keystrokes reach elements htmx already listens to."""
    page.evaluate(
        "() => { window.__settled = new Promise(resolve => document.body.addEventListener("
        "'htmx:afterSettle', () => resolve(true), {once: true})); }"
    )
    action()
    page.evaluate("window.__settled")
