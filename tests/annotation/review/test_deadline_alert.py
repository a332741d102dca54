"""The "will miss its deadline" alert waits until there is a pace to judge: a round opened
a minute ago has done nothing yet, which says nothing about its pace."""

import datetime as dt

import pytest
from django.utils import timezone

from annotation.models import ReviewRound
from annotation.selectors.review_dashboard import round_dashboard
from annotation.services.review_rounds import round_open

pytestmark = pytest.mark.django_db

MISS = "will miss its deadline"


def opened(review_data, experts, *, days_ago: float, deadline_in: int) -> ReviewRound:
    benchmark, systems = review_data
    round_ = round_open(
        benchmark=benchmark,
        name=f"R {days_ago}",
        systems=systems,
        experts=experts[:3],
        fraction=0.3,
        deadline=timezone.localdate() + dt.timedelta(days=deadline_in),
    )
    ReviewRound.objects.filter(pk=round_.pk).update(
        created=timezone.now() - dt.timedelta(days=days_ago)
    )
    round_.refresh_from_db()
    return round_


def alerts(round_) -> str:
    return " ".join(round_dashboard(round_=round_).alerts)


def test_no_deadline_alert_for_a_round_just_opened(review_data, experts):
    round_ = opened(review_data, experts, days_ago=0.01, deadline_in=3)
    assert MISS not in alerts(round_)


def test_the_alert_comes_once_a_day_has_shown_the_pace(review_data, experts):
    round_ = opened(review_data, experts, days_ago=2, deadline_in=3)
    assert MISS in alerts(round_)


def test_a_passed_deadline_is_said_at_once(review_data, experts):
    round_ = opened(review_data, experts, days_ago=0.01, deadline_in=-1)
    assert "The deadline has passed" in alerts(round_)
