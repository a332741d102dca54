"""Rank sets from corrected scores and the equal-bias test, paired by case."""

import math

import numpy as np
import pytest
from scipy.stats import chi2, norm

from leaderboard.stats.ppi import ppi_mean
from leaderboard.stats.ppi_ranks import (
    DEFAULT_BIAS_MARGIN,
    FEWER_THAN_TWO,
    NOT_RANKED,
    bias_beyond,
    equal_bias_test,
    rank_sets,
)


def _fit(rng, shift: float, *, ease, judge_shift: float = 0.0, noise: float = 8.0):
    cases = len(ease)
    y = np.clip(ease + shift + rng.normal(0, noise, cases), 0, 100)
    yhat = np.clip(y + judge_shift + rng.normal(0, noise / 2, cases), 0, 100)
    labelled = np.arange(cases) < cases // 3
    keys = [f"c{i}" for i in range(cases)]
    return ppi_mean(
        y=y[labelled],
        yhat=yhat[labelled],
        yhat_unlabelled=yhat[~labelled],
        keys=[k for k, m in zip(keys, labelled, strict=True) if m],
        unlabelled_keys=[k for k, m in zip(keys, labelled, strict=True) if not m],
    )


def test_far_apart_systems_get_single_ranks_and_close_ones_share_a_set():
    rng = np.random.default_rng(0)
    ease = rng.uniform(20, 60, 300)
    fits = {
        "A": _fit(rng, 30, ease=ease),
        "B": _fit(rng, 0.3, ease=ease),
        "C": _fit(rng, 0, ease=ease),
        "D": _fit(rng, -30, ease=ease),
    }
    ranks = rank_sets(fits)
    assert ranks.sets["A"] == (1, 1)
    assert ranks.sets["D"] == (4, 4)
    assert ranks.sets["B"] == (2, 3) == ranks.sets["C"]
    assert ranks.pairs == 6
    assert ranks.z == pytest.approx(norm.isf(0.05 / 12))


def test_pairing_by_case_narrows_the_difference():
    """Two systems that share the cases' ease differ far more precisely than their own
    intervals suggest: the paired interval is what separates them."""
    rng = np.random.default_rng(1)
    ease = rng.uniform(0, 80, 300)
    a, b = _fit(rng, 4, ease=ease, noise=2), _fit(rng, 0, ease=ease, noise=2)
    assert a.interval()[0] < b.interval()[1]  # their own intervals overlap
    assert rank_sets({"A": a, "B": b}).sets == {"A": (1, 1), "B": (2, 2)}


def test_a_system_without_a_corrected_score_has_no_set_and_widens_the_others():
    rng = np.random.default_rng(2)
    ease = rng.uniform(20, 60, 60)
    short = ppi_mean(y=[50.0] * 3, yhat=[50.0] * 3, yhat_unlabelled=[40.0] * 20)
    ranks = rank_sets({"A": _fit(rng, 0, ease=ease), "B": short})
    assert "B" not in ranks.sets and ranks.reason == NOT_RANKED and ranks.ranked == 1
    # B could stand above or below A.
    assert ranks.sets["A"] == (1, 2)


def test_equal_bias_test_with_two_systems_is_the_squared_z_of_the_paired_difference():
    rng = np.random.default_rng(3)
    ease = rng.uniform(20, 60, 240)
    a, b = _fit(rng, 0, ease=ease, judge_shift=6), _fit(rng, 0, ease=ease)
    keys = a.bias_influence.keys() | b.bias_influence.keys()
    var = math.fsum((a.bias_influence[k] - b.bias_influence[k]) ** 2 for k in keys)
    z2 = (a.bias - b.bias) ** 2 / var
    test = equal_bias_test({"A": a, "B": b})
    assert test.statistic == pytest.approx(z2, rel=1e-9)
    assert test.p_value == pytest.approx(chi2.sf(z2, 1), rel=1e-9)
    assert test.df == 1 and test.largest == "A" and test.p_value < 0.001


def test_equal_bias_test_needs_two_systems():
    rng = np.random.default_rng(4)
    test = equal_bias_test({"A": _fit(rng, 0, ease=rng.uniform(20, 60, 60))})
    assert test.p_value is None and test.reason == FEWER_THAN_TWO and test.largest == "A"


def test_a_judge_lenient_by_eight_points_on_one_system_is_named_beyond_the_margin():
    rng = np.random.default_rng(5)
    ease = rng.uniform(20, 60, 296)
    fits = {
        "A": _fit(rng, 0, ease=ease, judge_shift=8),
        "B": _fit(rng, 5, ease=ease),
        "C": _fit(rng, -5, ease=ease),
    }
    beyond = bias_beyond(fits, margin=DEFAULT_BIAS_MARGIN)
    assert [name for name, *_ in beyond] == ["A"]
    _name, bias, low, _high = beyond[0]
    assert low > DEFAULT_BIAS_MARGIN and bias == pytest.approx(fits["A"].bias)
    assert equal_bias_test(fits).largest == "A"
    assert bias_beyond(fits, margin=20.0) == []


def _fit_on(rng, keys, shift: float, judge_shift: float):
    cases = len(keys)
    y = np.clip(40 + shift + rng.normal(0, 10, cases), 0, 100)
    yhat = np.clip(y + judge_shift + rng.normal(0, 5, cases), 0, 100)
    n = cases // 3
    return ppi_mean(
        y=y[:n], yhat=yhat[:n], yhat_unlabelled=yhat[n:], keys=keys[:n], unlabelled_keys=keys[n:]
    )


def test_without_shared_cases_the_bias_test_is_cochrans_q_of_statsmodels():
    """Systems that share no case have a diagonal covariance: the Wald test of equal bias
    is then the meta-analysis heterogeneity statistic Q."""
    meta = pytest.importorskip("statsmodels.stats.meta_analysis")
    rng = np.random.default_rng(6)
    fits = {
        name: _fit_on(rng, [f"{name}{i}" for i in range(90)], shift, judge)
        for name, shift, judge in (("A", 0, 4), ("B", 3, 0), ("C", -2, 1), ("D", 1, -2))
    }
    test = equal_bias_test(fits)
    biases = np.array([fit.bias for fit in fits.values()])
    variances = np.array([fit.bias_se**2 for fit in fits.values()])
    reference = meta.combine_effects(biases, variances)
    assert test.statistic == pytest.approx(float(reference.q), rel=1e-9)
    assert test.df == 3
    assert test.p_value == pytest.approx(chi2.sf(float(reference.q), 3), rel=1e-9)
