"""Local mode (DEBUG on) still shows Concord's own 404 page for an expected miss, such as an
expert following a thread link while its round is reopened: never Django's debug page with
the list of URL patterns."""

import pytest
from playwright.sync_api import expect

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from tests.conftest import PASSWORD
from tests.e2e.conftest import LANGUAGES, login, screenshot, set_language

pytestmark = pytest.mark.browser

HEADING = {"en": "Page not found", "zh-hans": "页面没有找到"}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "path",
    [
        "/review/items/987654/discussion/",  # a thread the expert may not read now
        "/review/work/987654/",  # an item that is not theirs
        "/no-such-page/",  # a mistyped address
    ],
)
def test_concords_own_404_in_local_mode(e2e, page, settings, language, path):
    settings.DEBUG = True
    user_create_with_role(username="expert", password=PASSWORD, role=EXPERT)
    set_language(page, e2e, language)
    login(page, e2e, "expert", PASSWORD)
    response = page.goto(f"{e2e.url}{path}")
    assert response.status == 404
    expect(page.locator("h1")).to_have_text(HEADING[language])
    content = page.content()
    assert "URLconf" not in content and "urlpatterns" not in content
    assert "DEBUG = True" not in content
    # The page is Concord's: the top bar, and a way back to the expert's work.
    expect(page.locator("header.topbar")).to_be_visible()
    expect(page.locator("main a[href='/']")).to_be_visible()
    screenshot(page, f"not-found-{language}-{path.strip('/').replace('/', '-')}")


def test_the_api_still_answers_404_in_json(e2e, page, settings):
    settings.DEBUG = True
    response = page.request.get(f"{e2e.url}/api/no-such-endpoint/")
    assert response.status in (401, 403, 404)
    assert "URLconf" not in response.text()
