"""McNemar's exact test and the paired cluster-bootstrap difference, against values worked
out by hand."""

import math

import pytest

from leaderboard.stats.paired import cluster_bootstrap_difference, mcnemar_exact


def test_mcnemar_exact_is_twice_the_binomial_tail():
    # 10 against 2 discordant units: 2 * P(X <= 2), X ~ Bin(12, 1/2) = 2 * 79 / 4096.
    assert mcnemar_exact(10, 2).value == pytest.approx(2 * 79 / 4096, rel=1e-12)
    assert mcnemar_exact(2, 10).value == mcnemar_exact(10, 2).value


def test_mcnemar_is_at_most_one_and_undefined_without_discordant_units():
    assert mcnemar_exact(3, 3).value == 1.0
    none = mcnemar_exact(0, 0)
    assert none.value is None and none.reason == "mcnemar_no_discordant"


def test_mcnemar_keeps_tiny_p_values():
    # 1,000 against 0: 2 * 0.5**1000, about 1.87e-301, not 0.
    assert mcnemar_exact(1000, 0).value == pytest.approx(2 * math.pow(0.5, 1000), rel=1e-9)


def test_the_difference_interval_pairs_the_judges_by_case():
    # Judge A agrees on every unit, judge B on half, case by case: the difference is 0.5
    # in every resample.
    first = [True] * 8
    second = [True, False] * 4
    cases = ["c1", "c1", "c2", "c2", "c3", "c3", "c4", "c4"]
    interval = cluster_bootstrap_difference(first, second, cases, n_resamples=200, seed=7)
    assert interval.low == pytest.approx(0.5) and interval.high == pytest.approx(0.5)
    assert interval.n_clusters == 4 and interval.n_units == 8


def test_the_difference_interval_covers_the_observed_difference_and_is_reproducible():
    first = [True, True, False, True, True, True, False, True, True, True]
    second = [True, False, False, True, False, True, False, False, True, True]
    cases = [f"c{i // 2}" for i in range(10)]
    one = cluster_bootstrap_difference(first, second, cases, n_resamples=500, seed=3)
    two = cluster_bootstrap_difference(first, second, cases, n_resamples=500, seed=3)
    assert one == two
    observed = (sum(first) - sum(second)) / 10
    assert one.low <= observed <= one.high


def test_one_case_gives_no_interval_with_its_reason():
    interval = cluster_bootstrap_difference([True], [False], ["c1"])
    assert interval.low is None and interval.reason == "single_cluster"
