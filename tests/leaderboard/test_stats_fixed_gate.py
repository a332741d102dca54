"""The fixed rules' cluster-robust bound, checked against statsmodels."""

import numpy as np
import pytest
import statsmodels.api as sm
from statsmodels.stats.proportion import proportion_confint

from leaderboard.stats.fixed_gate import clustered_bound, design_effect, look_alpha


def _units(tallies):
    y = [1.0] * 0
    groups = []
    for index, (agree, units) in enumerate(tallies):
        y += [1.0] * agree + [0.0] * (units - agree)
        groups += [index] * units
    return np.array(y), np.array(groups)


@pytest.mark.parametrize(
    "tallies",
    [
        [(4, 4)] * 30 + [(0, 4)] * 10,
        [(3, 4), (2, 5), (9, 10), (1, 3), (6, 6), (0, 2), (7, 9)],
        [(a % 7, 7) for a in range(40)],
    ],
)
def test_the_design_effect_is_the_cluster_robust_variance_over_the_binomial(tallies):
    y, groups = _units(tallies)
    fitted = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    p, n = y.mean(), y.size
    expected = max(1.0, fitted.bse[0] ** 2 / (p * (1 - p) / n))
    assert design_effect(tallies) == pytest.approx(expected, rel=1e-10)


def test_a_perfectly_clustered_round_counts_each_response_about_once():
    # Every response all-agree or all-disagree: four criteria carry one response's worth.
    assert design_effect([(4, 4)] * 30 + [(0, 4)] * 10) == pytest.approx(4 * 40 / 39)


def test_without_clustering_the_bound_is_wilsons_95_interval():
    # Responses that vary less than independent units would: the design effect stays 1.
    tallies = [(1, 2)] * 100
    bound = clustered_bound(tallies, threshold=0.75)
    low, high = proportion_confint(100, 200, alpha=0.05, method="wilson")
    assert bound.design_effect == 1.0 and bound.effective_n == 200
    assert (bound.lower, bound.upper) == (pytest.approx(low), pytest.approx(high))


def test_clustering_widens_the_interval():
    clustered = clustered_bound([(4, 4)] * 45 + [(0, 4)] * 5, threshold=0.75)
    independent = clustered_bound([(1, 1)] * 180 + [(0, 1)] * 20, threshold=0.75)
    assert clustered.point == independent.point == 0.9
    assert clustered.lower < independent.lower
    assert clustered.p_value > independent.p_value


def test_each_look_spends_half_the_alpha_of_the_one_before():
    assert [look_alpha(k) for k in (1, 2, 3)] == [0.025, 0.0125, 0.00625]
    tallies = [(3, 4)] * 60
    first, third = (clustered_bound(tallies, threshold=0.7, look=k) for k in (1, 3))
    assert third.lower < first.lower and third.upper > first.upper


def test_no_units_is_undefined_not_zero():
    bound = clustered_bound([(0, 0)], threshold=0.75)
    assert bound.point is None and bound.lower is None and bound.p_value is None
    with pytest.raises(ValueError):
        clustered_bound([(5, 4)], threshold=0.75)
