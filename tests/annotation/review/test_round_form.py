"""The new-round form offers the chosen benchmark's systems only, and says each problem
once."""

import re

import pytest
from django.urls import reverse

from annotation.models import ReviewRound, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from tests.conftest import client_for, jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db


@pytest.fixture
def other_benchmark(review_data):
    benchmark_import(chunks=lines(jsonl_bytes([question("x1")])), benchmark_slug="other")
    answers = [{"question_id": "x1", "response": "另一个评测集的回答"}]
    responses_import(
        chunks=lines(jsonl_bytes(answers)), benchmark_slug="other", system_name="OtherOnly-1b"
    )
    return System.objects.get(name="OtherOnly-1b")


def system_boxes(body: str) -> set[str]:
    return set(re.findall(r'name="systems" value="(\d+)"', body))


def test_only_the_chosen_benchmarks_systems_are_offered(review_data, other_benchmark, coordinator):
    benchmark, systems = review_data
    client = client_for(coordinator)
    page = client.get(reverse("review-round-new"), {"benchmark": benchmark.pk}).content.decode()
    assert system_boxes(page) == {str(s.pk) for s in systems}
    assert "OtherOnly-1b" not in page


def test_a_system_of_another_benchmark_is_refused(
    review_data, other_benchmark, experts, coordinator
):
    benchmark, systems = review_data
    response = client_for(coordinator).post(
        reverse("review-round-new"),
        {
            "benchmark": benchmark.pk,
            "name": "mixed",
            "systems": [systems[0].pk, other_benchmark.pk],
            "experts": [e.pk for e in experts[:3]],
            "fraction": "0.3",
            "seed": "7",
            "raters_per_item": "3",
            "max_items_per_expert": "0",
        },
    )
    assert response.status_code == 400
    assert not ReviewRound.objects.exists()


def test_each_error_is_shown_once(review_data, experts, coordinator):
    benchmark, systems = review_data
    client = client_for(coordinator)
    base = {
        "benchmark": benchmark.pk,
        "systems": [s.pk for s in systems],
        "experts": [e.pk for e in experts[:3]],
        "fraction": "0.3",
        "seed": "7",
        "raters_per_item": "3",
        "max_items_per_expert": "0",
    }
    client.post(reverse("review-round-new"), {**base, "name": "taken"})
    again = client.post(reverse("review-round-new"), {**base, "name": "taken"})
    assert again.status_code == 400
    body = again.content.decode()
    assert body.count("already exists") == 1, body.count("already exists")
    missing = client.post(reverse("review-round-new"), {**base, "name": ""}).content.decode()
    assert missing.count("This field is required.") == 1


def test_a_round_can_be_set_to_close_when_the_sequential_test_decides(
    review_data, experts, coordinator
):
    benchmark, systems = review_data
    client = client_for(coordinator)
    base = {
        "benchmark": benchmark.pk,
        "systems": [s.pk for s in systems],
        "experts": [e.pk for e in experts[:3]],
        "fraction": "0.3",
        "seed": "7",
        "raters_per_item": "3",
        "max_items_per_expert": "0",
    }
    client.post(reverse("review-round-new"), {**base, "name": "stops", "close_when_decided": "on"})
    client.post(reverse("review-round-new"), {**base, "name": "runs on"})
    assert ReviewRound.objects.get(name="stops").close_when_decided
    assert not ReviewRound.objects.get(name="runs on").close_when_decided
    page = client.get(reverse("review-round-new"), {"benchmark": benchmark.pk}).content.decode()
    assert 'name="close_when_decided"' in page
