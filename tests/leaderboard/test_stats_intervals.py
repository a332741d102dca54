"""Wilson interval, the exact binomial test of the 75% gate, and the cluster bootstrap."""

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from leaderboard.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    agreement_binomial_test,
    cluster_bootstrap_agreement,
    wilson_interval,
)


@pytest.mark.parametrize("seed", range(8))
def test_wilson_matches_statsmodels(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 500))
    successes = int(rng.integers(0, n + 1))
    confidence = [0.95, 0.9, 0.99][seed % 3]
    low, high = proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
    interval = wilson_interval(successes, n, confidence)
    assert interval.low == pytest.approx(low, abs=1e-9)
    assert interval.high == pytest.approx(high, abs=1e-9)


@pytest.mark.parametrize(("successes", "n"), [(0, 10), (10, 10), (0, 1), (1, 1)])
def test_wilson_at_the_edges_stays_in_zero_one(successes, n):
    interval = wilson_interval(successes, n)
    low, high = proportion_confint(successes, n, method="wilson")
    assert 0.0 <= interval.low <= interval.high <= 1.0
    assert (interval.low, interval.high) == pytest.approx((low, high), abs=1e-9)


def test_wilson_without_units_is_undefined():
    interval = wilson_interval(0, 0)
    assert interval.low is None and interval.high is None and interval.reason


@pytest.mark.parametrize(("successes", "n"), [(5, 4), (-1, 4), (1, -1), (1.5, 4)])
def test_impossible_counts_are_a_programming_error(successes, n):
    with pytest.raises(ValueError):
        wilson_interval(successes, n)
    with pytest.raises(ValueError):
        agreement_binomial_test(successes, n)


def test_binomial_test_reference_values():
    assert agreement_binomial_test(80, 100, 0.75).value == pytest.approx(0.149, abs=5e-4)
    assert agreement_binomial_test(87, 100, 0.75).value == pytest.approx(0.0025, abs=5e-5)
    # The default threshold is HeartBench's 75% gate.
    assert agreement_binomial_test(87, 100) == agreement_binomial_test(87, 100, 0.75)


def test_binomial_test_degenerate_inputs():
    assert agreement_binomial_test(0, 0).value is None
    assert agreement_binomial_test(1, 1).value == pytest.approx(0.75)  # P(X >= 1)
    assert agreement_binomial_test(0, 1).value == pytest.approx(1.0)
    with pytest.raises(ValueError):
        agreement_binomial_test(1, 2, threshold=1.5)


def naive_cluster_bootstrap(flags, clusters, n_resamples, seed):
    """A slow loop over resamples and clusters, drawing the same random numbers."""
    order = list(dict.fromkeys(clusters))
    members = {c: [f for f, k in zip(flags, clusters, strict=True) if k == c] for c in order}
    picks = np.random.default_rng(seed).integers(
        0, len(order), size=(n_resamples, len(order)), dtype=np.int32
    )
    shares = []
    for row in picks:
        units = [flag for i in row for flag in members[order[i]]]
        shares.append(sum(units) / len(units))
    return np.percentile(shares, [2.5, 97.5])


def test_bootstrap_equals_a_naive_loop_over_whole_clusters():
    rng = np.random.default_rng(7)
    clusters = [f"case-{c}" for c in rng.integers(0, 25, size=200)]
    flags = (rng.random(200) < 0.8).tolist()
    interval = cluster_bootstrap_agreement(flags, clusters, n_resamples=300, seed=11)
    low, high = naive_cluster_bootstrap(flags, clusters, 300, 11)
    assert (interval.low, interval.high) == pytest.approx((low, high), abs=1e-12)
    assert (interval.n_resamples, interval.seed) == (300, 11)
    assert (interval.n_clusters, interval.n_units) == (len(set(clusters)), 200)


def test_bootstrap_is_reproducible_and_reports_its_settings():
    rng = np.random.default_rng(3)
    clusters = rng.integers(0, 60, size=500)
    flags = rng.random(500) < 0.85
    first = cluster_bootstrap_agreement(flags, clusters)
    assert first == cluster_bootstrap_agreement(flags.tolist(), clusters.tolist())
    assert (first.n_resamples, first.seed) == (DEFAULT_RESAMPLES, DEFAULT_SEED) == (1000, 20251)
    assert first.low <= flags.mean() <= first.high
    other = cluster_bootstrap_agreement(flags, clusters, seed=1)
    assert other.seed == 1 and other != first


def test_bootstrap_accepts_any_hashable_cluster_ids():
    flags = [True, False, True, True, False, True]
    ids = [("d", 1), ("d", 1), ("d", 2), 1, "1", "1"]
    interval = cluster_bootstrap_agreement(flags, ids, n_resamples=50)
    assert interval.n_clusters == 4 and interval.is_defined


def test_clustering_widens_the_interval():
    # Whole dialogues agree or disagree together: the cluster interval must be wider than
    # the one that pretends every unit is its own cluster.
    rng = np.random.default_rng(5)
    cluster_agrees = rng.random(200) < 0.8
    clusters = np.repeat(np.arange(200), 10)
    flags = cluster_agrees[clusters]
    clustered = cluster_bootstrap_agreement(flags, clusters)
    independent = cluster_bootstrap_agreement(flags, np.arange(flags.size))
    assert clustered.high - clustered.low > 2 * (independent.high - independent.low)


@pytest.mark.parametrize(
    ("flags", "clusters"),
    [([], []), ([True, False, True], ["a", "a", "a"]), ([True], [1])],
)
def test_bootstrap_degenerate_inputs_are_undefined_with_a_reason(flags, clusters):
    interval = cluster_bootstrap_agreement(flags, clusters)
    assert interval.low is None and interval.high is None and interval.reason
    assert interval.n_resamples == 1000 and interval.seed == 20251


def test_bootstrap_all_agree_gives_a_point_interval():
    interval = cluster_bootstrap_agreement([True] * 6, [1, 1, 2, 3, 3, 3])
    assert (interval.low, interval.high) == (1.0, 1.0)


def test_bootstrap_rejects_misuse():
    with pytest.raises(ValueError):
        cluster_bootstrap_agreement([True, False], [1])
    with pytest.raises(ValueError):
        cluster_bootstrap_agreement([True, False], [1, 2], n_resamples=0)


def test_bootstrap_handles_a_full_benchmark():
    # Its speed is measured by bench/agreement_speed.py, not asserted here.
    rng = np.random.default_rng(20251)
    clusters = np.sort(rng.integers(0, 15_000, size=160_000))
    flags = rng.random(160_000) < 0.86
    interval = cluster_bootstrap_agreement(flags, clusters, n_resamples=1000)
    assert interval.is_defined and interval.n_units == 160_000
    assert interval.low < flags.mean() < interval.high


def test_bootstrap_flags_may_be_zero_one_but_nothing_else():
    as_ints = cluster_bootstrap_agreement([1, 0, 1, 1], [1, 1, 2, 3], n_resamples=40)
    as_bools = cluster_bootstrap_agreement([True, False, True, True], [1, 1, 2, 3], n_resamples=40)
    assert as_ints == as_bools
    with pytest.raises(ValueError):
        cluster_bootstrap_agreement([True, None], [1, 2])
    with pytest.raises(ValueError):
        cluster_bootstrap_agreement([2, 0], [1, 2])
