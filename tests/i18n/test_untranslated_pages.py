"""Under zh-hans, no main page shows English interface text: every visible text node and
every read-out attribute, with the data (names, codes, benchmark content) removed, must
be free of English words."""

import pytest
from django.test import Client

from tests.i18n.pages import build_site, data_strings, main_pages, site_users, untranslated_words

pytestmark = pytest.mark.django_db


def test_every_main_page_is_fully_chinese_under_zh_hans(coordinator):
    site = build_site(coordinator)
    users = site_users()
    data = data_strings()
    clients: dict = {}
    problems = {}
    for name, persona, url in main_pages(site):
        if persona not in clients:
            clients[persona] = Client(HTTP_ACCEPT_LANGUAGE="zh-hans,zh;q=0.9,en;q=0.5")
            if persona is not None:
                clients[persona].force_login(users[persona])
        response = clients[persona].get(url)
        assert response.status_code == 200, (name, url, response.status_code)
        html = response.content.decode()
        assert '<html lang="zh-hans">' in html, name
        words = untranslated_words(html, data)
        if words:
            problems[f"{name} ({url})"] = sorted(set(words))
    assert not problems, "\n".join(f"{page}: {words}" for page, words in problems.items())
