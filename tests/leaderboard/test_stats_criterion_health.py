"""The rubric health measures and their flags, from counts (no database)."""

import pytest

from leaderboard.stats.criterion_health import (
    AMBIGUOUS,
    JUDGE_MISREADS,
    NOT_DISCRIMINATING,
    HealthCounts,
    discrimination,
    expert_unanimity,
    health,
    pooled,
    saturation,
)


def test_unanimity_needs_enough_multiply_rated_units():
    assert expert_unanimity(0, 0).reason == "no_rater_pairs"
    assert expert_unanimity(3, 3).reason == "health_few_rated_units:units=3;needed=4"
    assert expert_unanimity(6, 4).value == pytest.approx(4 / 6)


def test_discrimination_is_the_mean_difference_over_system_pairs():
    assert discrimination([1.0]).reason == "health_few_systems:systems=1;needed=2"
    assert discrimination([1, 1, 1, 0, 0, 0]).value == pytest.approx(9 / 15)
    assert discrimination([0.5, 0.5, 0.5]).value == 0.0
    # One odd system out of fourteen: 13 of 91 pairs told apart.
    assert discrimination([1] * 13 + [0]).value == pytest.approx(13 / 91)


def test_saturation_names_which_way():
    assert saturation({"a": (2, 2), "b": (1, 1)}) == "all_hit"
    assert saturation({"a": (0, 2), "b": (0, 1)}) == "all_missed"
    assert saturation({"a": (1, 2), "b": (0, 1)}) is None
    assert saturation({"a": (1, 1)}) is None  # one system is not saturation, just one


def test_the_flags_and_their_thresholds():
    spread = {"a": (1, 1), "b": (0, 1), "c": (1, 1), "d": (0, 1)}
    assert health(HealthCounts(8, 8, 8, 0, spread)).flags == ()
    assert health(HealthCounts(8, 5, 8, 0, spread)).flags == (AMBIGUOUS,)
    assert health(HealthCounts(8, 6, 8, 0, spread)).flags == ()  # 0.75 is not below 0.75
    # 3 of 8 disagreements: 37.5%, but the interval's lower bound is below 25%.
    assert health(HealthCounts(8, 8, 8, 3, spread)).flags == ()
    assert health(HealthCounts(8, 8, 8, 7, spread)).flags == (JUDGE_MISREADS,)
    flat = {"a": (1, 1), "b": (1, 1), "c": (1, 1)}
    assert health(HealthCounts(8, 8, 8, 0, flat)).flags == (NOT_DISCRIMINATING,)
    assert health(HealthCounts(8, 8, 8, 0, flat), catastrophic=True).flags == ()


def test_undefined_measures_flag_nothing():
    found = health(HealthCounts())
    assert found.flags == () and found.systems == 0
    assert found.disagreement.reason == "no_judged_units"
    assert found.disagreement_95.reason == "no_units_to_bound"


def test_pooling_adds_units_and_verdicts_per_system():
    first = HealthCounts(2, 1, 3, 1, {"a": (1, 1)})
    second = HealthCounts(4, 4, 2, 0, {"a": (0, 1), "b": (1, 1)})
    total = pooled([first, second])
    assert total == HealthCounts(6, 5, 5, 1, {"a": (1, 2), "b": (1, 1)})


def test_inconsistent_counts_are_refused():
    with pytest.raises(ValueError, match="unanimous"):
        HealthCounts(rated=1, unanimous=2)
    with pytest.raises(ValueError, match="disagreements"):
        HealthCounts(judged=1, disagreements=2)
    with pytest.raises(ValueError, match="hits"):
        HealthCounts(system_hits={"a": (2, 1)})
