"""A round's calibration/held-out split: drawn from a recorded seed when the round opens,
kept on every item, shown on the round page and in its audit record; a share of 0 keeps
rounds as they were."""

import pytest
from django.urls import reverse

from annotation import audit_actions
from annotation.models import ReviewItem, ReviewRound
from annotation.review_split import calibration_split
from annotation.selectors.round_split import round_split
from annotation.services.review_rounds import RoundInvalid, round_extend, round_open
from core.models import AuditEvent
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def _open(review_data, experts, name="S1", **options):
    benchmark, systems = review_data
    return round_open(
        benchmark=benchmark,
        name=name,
        systems=systems,
        experts=experts[:3],
        fraction=0.5,
        seed=11,
        **options,
    )


def test_the_split_is_fixed_by_its_seed_when_the_round_opens(review_data, experts):
    round_ = _open(review_data, experts, calibration_share=0.3, split_seed=5)
    parts = dict(ReviewItem.objects.filter(round=round_).values_list("response_id", "part"))
    calibration = {r for r, part in parts.items() if part == "calibration"}
    assert len(parts) == 15 and len(calibration) == 5  # 0.3 of 15, rounded
    assert {part for part in parts.values()} == {"calibration", "held_out"}
    # The same items and seed draw the same split: anyone can redraw it from the record.
    assert calibration == calibration_split(parts, share=0.3, seed=5)
    assert calibration != calibration_split(parts, share=0.3, seed=6)
    round_.refresh_from_db()
    assert (round_.calibration_share, round_.split_seed) == (0.3, 5)
    split = round_split(round_=round_)
    assert split["calibration_items"] == 5 and split["held_out_items"] == 10
    assert split["calibration_responses"] == sorted(calibration)
    opened = AuditEvent.objects.get(action=audit_actions.ROUND_OPENED)
    assert opened.details["calibration_share"] == 0.3 and opened.details["split_seed"] == 5


def test_the_split_seed_defaults_to_the_round_seed(review_data, experts):
    round_ = _open(review_data, experts, calibration_share=0.4)
    assert round_.split_seed == 11
    parts = ReviewItem.objects.filter(round=round_).values_list("response_id", "part")
    assert {r for r, p in parts if p == "calibration"} == calibration_split(
        [r for r, _p in parts], share=0.4, seed=11
    )


def test_no_share_no_split(review_data, experts):
    round_ = _open(review_data, experts)
    assert round_.calibration_share == 0 and round_.split_seed is None
    assert set(ReviewItem.objects.filter(round=round_).values_list("part", flat=True)) == {""}
    assert round_split(round_=round_) is None


def test_an_extension_splits_its_new_items_by_the_same_share(review_data, experts):
    round_ = _open(review_data, experts, calibration_share=0.4)
    first = set(
        ReviewItem.objects.filter(round=round_, part="calibration").values_list("pk", flat=True)
    )
    round_extend(round_=round_, fraction=1.0)
    items = ReviewItem.objects.filter(round=round_)
    assert items.count() == 30
    assert first <= set(items.filter(part="calibration").values_list("pk", flat=True))
    assert items.filter(part="calibration").count() == 6 + 6  # 0.4 of 15, then of 15 more
    assert not items.filter(part="").exists()


@pytest.mark.parametrize("share", [-0.1, 1.5])
def test_a_share_outside_0_to_1_is_refused(review_data, experts, share):
    with pytest.raises(RoundInvalid, match="calibration share"):
        _open(review_data, experts, calibration_share=share)
    assert not ReviewRound.objects.exists()


def test_the_form_opens_a_split_round_and_its_page_shows_the_split(
    review_data, experts, coordinator
):
    benchmark, systems = review_data
    client = client_for(coordinator)
    response = client.post(
        reverse("review-round-new"),
        {
            "benchmark": benchmark.pk,
            "name": "split round",
            "systems": [s.pk for s in systems],
            "experts": [e.pk for e in experts[:3]],
            "fraction": "0.5",
            "seed": "7",
            "calibration_share": "0.2",
            "raters_per_item": "3",
            "max_items_per_expert": "0",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    round_ = ReviewRound.objects.get(name="split round")
    assert round_.calibration_share == 0.2 and round_.split_seed == 7
    page = client.get(reverse("review-round", args=[round_.pk])).content.decode()
    assert 'id="round-split"' in page
    assert "3 items in the calibration part" in page and "12 held out" in page
    zh = client.get(
        reverse("review-round", args=[round_.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert 'id="round-split"' in zh


def test_the_form_without_a_share_opens_a_round_without_split(review_data, experts, coordinator):
    benchmark, systems = review_data
    response = client_for(coordinator).post(
        reverse("review-round-new"),
        {
            "benchmark": benchmark.pk,
            "name": "plain",
            "systems": [s.pk for s in systems],
            "experts": [e.pk for e in experts[:3]],
            "fraction": "0.5",
            "seed": "7",
            "raters_per_item": "3",
            "max_items_per_expert": "0",
        },
    )
    assert response.status_code == 302
    round_ = ReviewRound.objects.get(name="plain")
    assert round_.calibration_share == 0 and round_split(round_=round_) is None


def test_the_api_opens_a_split_round_and_shows_each_items_part(review_data, experts, coordinator):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(coordinator)
    url = reverse("api-review-manage-rounds")
    body = {
        "benchmark": "hb",
        "name": "API split",
        "systems": [s.name for s in review_data[1]],
        "experts": [e.username for e in experts[:3]],
        "fraction": 0.5,
        "seed": 7,
        "calibration_share": 0.2,
        "split_seed": 99,
    }
    created = client.post(url, body, format="json")
    assert created.status_code == 201, created.content
    data = created.json()
    assert (data["calibration_share"], data["split_seed"]) == (0.2, 99)
    parts = [item["part"] for item in data["items"]]
    assert parts.count("calibration") == 3 and parts.count("held_out") == 12
    refused = client.post(url, {**body, "name": "bad", "calibration_share": 1.5}, format="json")
    assert refused.status_code == 400 and "calibration_share" in refused.json()
    plain = client.post(url, {**body, "name": "plain", "calibration_share": 0}, format="json")
    assert plain.json()["split_seed"] is None
    assert {item["part"] for item in plain.json()["items"]} == {""}
