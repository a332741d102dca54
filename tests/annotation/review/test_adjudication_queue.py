"""The adjudication queue holds what needs a senior expert: open flags, ties and splits on
catastrophic criteria; every 2-1 split only on request; flag reasons in words."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Flag, ReviewItem, ReviewRound
from annotation.selectors.review_dashboard import adjudication_queue
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import flag_raise
from tests.annotation.review.test_coordinator_pages import complete_round
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

# Criterion 4 of the fixture's rubric is the catastrophic one ("其他", no weight).
SPLIT_2_1_ORDINARY = [[True, True, False, False], [True, False, False, False], [True] * 3 + [False]]
SPLIT_2_1_CATASTROPHIC = [[True] * 4, [True] * 3 + [False], [True] * 3 + [False]]


def queue(client, round_, **params) -> str:
    return client.get(
        reverse("review-adjudication"), {"round": round_.pk, **params}
    ).content.decode()


def test_ordinary_2_1_splits_wait_behind_the_filter(review_round, experts, coordinator):
    complete_round(review_round, experts[:3], SPLIT_2_1_ORDINARY)
    flagged = review_round.items.order_by("pk").first()
    assignment = flagged.assignments.first()
    flag_raise(assignment=assignment, reason=Flag.Reason.UNCLEAR_RUBRIC, note="第二条含糊")
    client = client_for(coordinator)
    default = queue(client, review_round)
    codes = list(ReviewItem.objects.filter(round=review_round).values_list("code", flat=True))
    assert len(codes) > 2
    # Only the flagged item, though every item has a 2-1 split.
    assert [code for code in codes if code in default] == [flagged.code]
    assert "unclear rubric" in default and "unclear_rubric" not in default
    every = queue(client, review_round, show="splits")
    assert all(code in every for code in codes)


def test_catastrophic_splits_are_in_the_default_queue(review_round, experts, coordinator):
    complete_round(review_round, experts[:3], SPLIT_2_1_CATASTROPHIC)
    default = queue(client_for(coordinator), review_round)
    for code in review_round.items.values_list("code", flat=True):
        assert code in default


def test_ties_are_in_the_default_queue(review_data, experts, coordinator):
    benchmark, systems = review_data
    round_ = round_open(
        benchmark=benchmark,
        name="pairs",
        systems=systems,
        experts=experts[:2],
        fraction=0.3,
        raters_per_item=2,
    )
    complete_round(round_, experts[:2], [[True, True, False, False], [True, False, False, False]])
    default = queue(client_for(coordinator), round_)
    for code in round_.items.values_list("code", flat=True):
        assert code in default


def test_flag_reasons_are_translated_on_the_queue_and_the_item(review_round, experts, coordinator):
    complete_round(review_round, experts[:3], SPLIT_2_1_ORDINARY)
    item = review_round.items.order_by("pk").first()
    flag_raise(assignment=item.assignments.first(), reason=Flag.Reason.BROKEN_TEXT)
    client = client_for(coordinator)
    client.cookies["django_language"] = "zh-hans"
    page = queue(client, review_round)
    assert "broken_text" not in page and "broken text" not in page
    assert "文本残缺" in page
    item_page = client.get(reverse("review-adjudicate", args=[item.pk])).content.decode()
    assert "broken_text" not in item_page and "文本残缺" in item_page


def test_the_demo_validation_round_queues_what_needs_a_decision():
    call_command("load_demo")
    round_ = ReviewRound.objects.get(name="Demo validation round")
    default = adjudication_queue(round_=round_)
    every = adjudication_queue(round_=round_, show="splits")
    assert 0 < len(default) < len(every) < round_.items.count() + 1
    for entry in default:
        assert entry["flags"] or entry["tied_criteria"] or entry["catastrophic_splits"]
