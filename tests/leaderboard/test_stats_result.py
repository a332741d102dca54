"""Stat and Interval keep their promise: a finite number, or None with a reason."""

import math

import pytest

from leaderboard.stats import BootstrapInterval, Interval, Stat


def test_a_defined_stat_is_a_plain_float():
    stat = Stat.of(1)
    assert stat.value == 1.0 and type(stat.value) is float
    assert stat.reason is None and stat.is_defined


def test_an_undefined_stat_carries_its_reason():
    stat = Stat.undefined("no units")
    assert stat.value is None and stat.reason == "no units" and not stat.is_defined


@pytest.mark.parametrize(
    "kwargs",
    [
        {"value": None, "reason": None},
        {"value": None, "reason": ""},
        {"value": 0.5, "reason": "both"},
        {"value": math.nan},
        {"value": math.inf},
    ],
)
def test_a_stat_refuses_nan_and_contradictions(kwargs):
    with pytest.raises(ValueError):
        Stat(**kwargs)


def test_stats_are_frozen():
    stat = Stat.of(0.5)
    with pytest.raises(AttributeError):
        stat.value = 0.6  # type: ignore[misc]


def test_intervals_are_ordered_or_undefined():
    assert Interval.of(0.1, 0.2) == Interval(0.1, 0.2, None)
    assert Interval.undefined("no units").low is None
    with pytest.raises(ValueError):
        Interval.of(0.3, 0.2)
    with pytest.raises(ValueError):
        Interval(0.1, None, None)
    with pytest.raises(ValueError):
        Interval(None, None, None)
    with pytest.raises(ValueError):
        Interval(0.0, math.nan, None)


def test_a_bootstrap_interval_is_an_interval_with_its_settings():
    interval = BootstrapInterval(
        low=0.1, high=0.2, reason=None, n_resamples=10, seed=3, n_clusters=4, n_units=9
    )
    assert isinstance(interval, Interval) and interval.is_defined
    assert (interval.n_resamples, interval.seed) == (10, 3)
