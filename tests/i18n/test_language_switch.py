"""The language comes from the browser until the reader chooses one with the switcher; the
switcher keeps the reader on the page they were reading."""

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def _lang(html: str) -> str:
    return html.split('<html lang="', 1)[1].split('"', 1)[0]


def test_the_browser_language_is_the_default(researcher):
    url = reverse("benchmark-list")
    chinese = client_for(researcher).get(url, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    english = client_for(researcher).get(url, HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.8")
    unknown = client_for(researcher).get(url, HTTP_ACCEPT_LANGUAGE="fr-FR")
    assert _lang(chinese.content.decode()) == "zh-hans" and "评测集" in chinese.content.decode()
    assert _lang(english.content.decode()) == "en" and "Benchmarks" in english.content.decode()
    assert _lang(unknown.content.decode()) == settings.LANGUAGE_CODE == "en"


def test_the_switcher_changes_language_and_returns_to_the_page(researcher):
    client = client_for(researcher)
    page = reverse("benchmark-list") + "?page=1"
    before = client.get(page, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    # The switcher is a form on every page, posting the language and the page to return to.
    assert f'action="{reverse("set_language")}"' in before
    assert f'name="next" type="hidden" value="{page}"' in before
    assert '<option value="zh-hans" >中文</option>' in before

    switched = client.post(
        reverse("set_language"), {"language": "zh-hans", "next": page}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert switched.status_code == 302 and switched["Location"] == page
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    # The choice outlasts the browser's own preference on every later page.
    after = client.get(page, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert _lang(after) == "zh-hans" and "<h1>评测集</h1>" in after
    assert '<option value="zh-hans" selected>中文</option>' in after

    back = client.post(reverse("set_language"), {"language": "en", "next": page})
    assert back["Location"] == page
    assert "<h1>Benchmarks</h1>" in client.get(page).content.decode()


def test_the_login_page_can_be_switched_before_signing_in():
    client = Client()
    client.post(reverse("set_language"), {"language": "zh-hans", "next": reverse("login")})
    body = client.get(reverse("login")).content.decode()
    assert "用户名" in body and "密码" in body and "Username" not in body


def test_the_switcher_refuses_to_send_the_reader_to_another_site(researcher):
    client = client_for(researcher)
    response = client.post(
        reverse("set_language"), {"language": "zh-hans", "next": "https://evil.example/"}
    )
    assert response.status_code == 302 and "evil.example" not in response["Location"]
