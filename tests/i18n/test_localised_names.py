"""Names with a translation are shown in the reader's language: the taxonomy, the demo
benchmark, role names, report groups; dates follow the language's format."""

import pytest
from django.urls import reverse

from annotation.models import Ability
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def _get(client, url: str, language: str) -> str:
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()


def test_taxonomy_labels_follow_the_language(demo_loaded, coordinator):
    client = client_for(coordinator)
    url = reverse("rubric-overview", args=["demo-en"])
    english, chinese = _get(client, url, "en"), _get(client, url, "zh-hans")
    # Category and ability names come from the taxonomy's two name columns.
    assert "<td>Emotion</td>" in english and "<td>情绪</td>" not in english
    assert "<td>情绪</td>" in chinese and "<td>Emotion</td>" not in chinese
    assert "Emotional Perception" in english and "Emotional Perception" not in chinese
    ability = Ability.objects.get(label="情绪感知")
    assert (ability.name_en, ability.name_zh) == ("Emotional Perception", "情绪感知")


def test_the_rubric_editor_offers_abilities_in_the_language(demo_loaded, coordinator):
    client = client_for(coordinator)
    url = reverse("rubric-editor", args=["demo-en", "demo01"])
    assert ">Curiosity · 好奇心<" in _get(client, url, "en")
    assert ">好奇心<" in _get(client, url, "zh-hans")


def test_the_demo_benchmark_and_roles_are_named_in_the_language(demo_loaded, coordinator):
    client = client_for(coordinator)
    url = reverse("benchmark-list")
    english, chinese = _get(client, url, "en"), _get(client, url, "zh-hans")
    assert "Concord demo (Chinese)" in english and "Concord demo (English)" in english
    assert "Concord 演示（中文）" in chinese and "Concord 演示（英文）" in chinese
    assert "coord · Coordinator" in english and "coord · 协调员" in chinese


def test_dates_follow_the_language(demo_loaded, coordinator):
    client = client_for(coordinator)
    url = reverse("rubric-history", args=["demo", "demo01"])
    assert "年" not in _get(client, url, "en")
    assert "年" in _get(client, url, "zh-hans")
