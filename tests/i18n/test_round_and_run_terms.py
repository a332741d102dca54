"""Under zh-hans, the experts' review rounds and the judge's runs have names a psychologist
tells apart (they read as synonyms, 评审轮次 and 评审批次, before): 专家标注轮次 for the
first, 模型评分运行 for the second, the same wherever they appear."""

import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

CATALOG = Path(__file__).resolve().parents[2] / "locale/zh_Hans/LC_MESSAGES/django.po"
ROUND, RUN = "专家标注轮次", "模型评分运行"


def test_the_two_terms_are_distinct_in_every_message():
    with translation.override("zh-hans"):
        assert gettext("Review rounds") == ROUND
        assert gettext("Judge runs") == RUN
        assert gettext("A review round and a judge run are needed.") == (
            f"需要一个{ROUND}和一个{RUN}。"
        )
    catalog = CATALOG.read_text(encoding="utf-8")
    translations = re.findall(r'^msgstr(?:\[\d\])? "(.*)"$', catalog, re.M)
    assert not [t for t in translations if "评审批次" in t or "评审轮次" in t]
    assert not [t for t in translations if "批次" in t]


@pytest.mark.django_db
def test_the_navigation_names_both_clearly(coordinator):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(coordinator)
    page = client.get(reverse("review-rounds")).content.decode()
    nav = page[page.index("<nav") : page.index("</nav>")]
    assert ROUND in nav and RUN in nav
