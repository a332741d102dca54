"""A round records each response's inclusion probability, under either sampling design."""

import pytest
from django.urls import reverse

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, ReviewItem, ReviewRound, System
from annotation.review_sampling import Unit, equal_per_system_sample
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_rounds import RoundInvalid, round_extend, round_open
from tests.conftest import client_for, jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    """System Big answers 10 cases, system Small 4 of them."""
    benchmark_import(
        chunks=lines(jsonl_bytes([question(f"q{i}") for i in range(10)])), benchmark_slug="sw"
    )
    for name, count in (("Big", 10), ("Small", 4)):
        answers = [{"question_id": f"q{i}", "response": f"回答 {i}"} for i in range(count)]
        responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="sw", system_name=name)
    experts = [
        user_create_with_role(username=f"sw{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    return Benchmark.objects.get(slug="sw"), list(System.objects.all()), experts


def probabilities(round_) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for system, p in ReviewItem.objects.filter(round=round_).values_list(
        "response__system__name", "inclusion_probability"
    ):
        found.setdefault(system, []).append(p)
    return found


def test_a_uniform_round_records_the_same_share_for_every_response(setup):
    benchmark, systems, experts = setup
    round_ = round_open(
        benchmark=benchmark, name="U", systems=systems, experts=experts, fraction=0.5
    )
    assert round_.sampling == "proportional"
    found = probabilities(round_)
    # 5 of Big's 10 and 2 of Small's 4: each drawn with probability one half.
    assert len(found["Big"]) == 5 and len(found["Small"]) == 2
    assert set(found["Big"]) | set(found["Small"]) == {0.5}


def test_a_round_by_system_draws_as_many_from_each_system_and_records_the_chances(setup):
    benchmark, systems, experts = setup
    round_ = round_open(
        benchmark=benchmark,
        name="S",
        systems=systems,
        experts=experts,
        fraction=6 / 14,
        sampling="by_system",
    )
    found = probabilities(round_)
    # 6 items, 3 per system: 3 of Big's 10, 3 of Small's 4.
    assert sorted(found["Big"]) == [0.3] * 3
    assert sorted(found["Small"]) == [0.75] * 3
    # Extending to 10 items: Small gives all 4, Big the other 6; the chances of the items
    # already there rise too.
    assert round_extend(round_=round_, fraction=10 / 14) == 4
    found = probabilities(round_)
    assert sorted(found["Big"]) == [0.6] * 6
    assert sorted(found["Small"]) == [1.0] * 4


def test_an_unknown_design_is_refused_with_its_name(setup):
    benchmark, systems, experts = setup
    with pytest.raises(RoundInvalid, match="cluster"):
        round_open(
            benchmark=benchmark, name="X", systems=systems, experts=experts, sampling="cluster"
        )


def test_equal_per_system_is_reproducible_and_capped_by_small_systems():
    units = [Unit(i, ("normal", "", "A")) for i in range(10)] + [
        Unit(100 + i, ("normal", "", "B")) for i in range(2)
    ]
    first = equal_per_system_sample(units, fraction=0.5, seed=7, system_of=lambda s: s[2])
    again = equal_per_system_sample(units, fraction=0.5, seed=7, system_of=lambda s: s[2])
    assert first == again
    # 6 items: B can give 2, A gives the other 4.
    assert sum(pk >= 100 for pk in first) == 2 and len(first) == 6


def test_the_api_opens_a_round_by_system_and_shows_each_items_probability(
    review_data, experts, coordinator
):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(coordinator)
    url = reverse("api-review-manage-rounds")
    body = {
        "benchmark": "hb",
        "name": "API by system",
        "systems": [s.name for s in review_data[1]],
        "experts": [e.username for e in experts[:3]],
        "fraction": 0.2,
    }
    created = client.post(url, {**body, "sampling": "by_system"}, format="json")
    assert created.status_code == 201, created.content
    data = created.json()
    # 3 systems x 10 cases, 6 items: 2 per system, each drawn with probability 2/10.
    assert data["sampling"] == "by_system"
    assert [item["inclusion_probability"] for item in data["items"]] == [0.2] * 6
    plain = client.post(url, {**body, "name": "API default"}, format="json").json()
    assert plain["sampling"] == "proportional"
    refused = client.post(url, {**body, "name": "bad", "sampling": "cluster"}, format="json")
    assert refused.status_code == 400 and "sampling" in refused.json()


def test_the_form_opens_a_round_by_system_and_its_page_names_the_design(
    review_data, experts, coordinator
):
    benchmark, systems = review_data
    client = client_for(coordinator)
    base = {
        "benchmark": benchmark.pk,
        "systems": [s.pk for s in systems],
        "experts": [e.pk for e in experts[:3]],
        "fraction": "0.2",
        "seed": "7",
        "raters_per_item": "3",
        "max_items_per_expert": "0",
    }
    page = client.get(reverse("review-round-new"), {"benchmark": benchmark.pk}).content.decode()
    assert 'name="sampling"' in page
    client.post(reverse("review-round-new"), {**base, "name": "by sys", "sampling": "by_system"})
    client.post(reverse("review-round-new"), {**base, "name": "default"})
    by_system = ReviewRound.objects.get(name="by sys")
    assert by_system.sampling == "by_system"
    assert ReviewRound.objects.get(name="default").sampling == "proportional"
    shown = client.get(reverse("review-round", args=[by_system.pk])).content.decode()
    assert "stratified by system" in shown
