"""Making a benchmark's anchors: held-out responses of a closed round only, each with the
criteria the experts' majority decided (ties have no gold), in a seeded order."""

import pytest
from django.urls import reverse

from annotation.models import ReviewItem, ReviewRound, System
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open, round_set_status
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import AnchorSet, AnchorUnit
from judging.services.anchors import AnchorsRefused, anchor_set_create
from tests.conftest import client_for
from tests.leaderboard.test_evidence_chain import SYSTEMS, world  # noqa: F401 - fixture

pytestmark = pytest.mark.django_db


def _split_round(benchmark, experts) -> ReviewRound:
    round_ = round_open(
        benchmark=benchmark,
        name="R-split",
        systems=list(System.objects.filter(name__in=SYSTEMS)),
        experts=experts[:2],
        fraction=1.0,
        raters_per_item=2,
        calibration_share=0.5,
        split_seed=4,
    )
    # Two experts: agreeing on every criterion but the first, where they split evenly.
    for number, expert in enumerate(experts[:2]):
        while (assignment := assignment_next(expert=expert, round_=round_)) is not None:
            assignment_submit(
                assignment=assignment,
                votes=[
                    VoteInput(c.pk, c.position != 1 or number == 0)
                    for c in item_criteria(assignment=assignment)
                ],
                comment="",
                active_seconds=30,
                base_revision=0,
            )
    return round_


def test_anchors_come_from_the_held_out_part_with_majority_gold_only(world):  # noqa: F811
    benchmark, experts = world
    round_ = _split_round(benchmark, experts)
    with pytest.raises(AnchorsRefused, match="not closed"):
        anchor_set_create(round_=round_)
    round_set_status(round_=round_, status=ReviewRound.Status.CLOSED)
    with pytest.raises(AnchorsRefused, match="at least one"):
        anchor_set_create(round_=round_, responses=0)
    anchor_set = anchor_set_create(round_=round_, responses=30, seed=9)
    held_out = set(
        ReviewItem.objects.filter(round=round_, part=ReviewItem.Part.HELD_OUT).values_list(
            "response_id", flat=True
        )
    )
    units = list(AnchorUnit.objects.filter(anchor_set=anchor_set).select_related("criterion"))
    assert {u.response_id for u in units} == held_out and 0 < len(held_out) < 12
    assert all(u.criterion.position != 1 and u.gold for u in units)
    # The same seed draws the same order.
    again = anchor_set_create(round_=round_, responses=3, seed=9)
    first_three = list(
        AnchorUnit.objects.filter(anchor_set=anchor_set, position__lt=3)
        .order_by("position")
        .values_list("response_id", flat=True)
        .distinct()
    )
    drawn = list(AnchorUnit.objects.filter(anchor_set=again).values_list("response_id", flat=True))
    assert set(drawn) <= held_out and len(set(drawn)) == 3
    assert first_three and AnchorSet.objects.count() == 2


def test_the_drift_page_offers_anchors_to_coordinators_and_refuses_bad_input(
    world,  # noqa: F811
    coordinator,
    expert,
):
    benchmark, experts = world
    round_ = _split_round(benchmark, experts)
    from tests.conftest import judge_config

    version = judge_config(name="j", model="m").versions.get()
    page = reverse("judge-drift", args=[benchmark.slug, version.pk])
    make = reverse("judge-drift-anchors", args=[benchmark.slug, version.pk])
    client = client_for(coordinator)
    html = client.get(page).content.decode()
    assert "no anchor set yet" in html and 'name="responses"' in html
    refused = client.post(make, {"round": round_.pk, "responses": "5"}, follow=True)
    assert "is not closed" in refused.content.decode() and not AnchorSet.objects.exists()
    bad = client.post(make, {"round": "x", "responses": "five"}, follow=True)
    assert bad.status_code == 200 and "Choose a closed round" in bad.content.decode()
    # Experts make no anchors.
    assert client_for(expert).post(make, {"round": round_.pk, "responses": "5"}).status_code == 403
    zh = client_for(coordinator)
    zh.cookies["django_language"] = "zh-hans"
    assert zh.get(page).status_code == 200
