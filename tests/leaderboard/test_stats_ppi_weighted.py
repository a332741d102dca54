"""The PPI++ mean weighted by the inverse of each response's inclusion probability, against
ppi_py's weighted estimator (`w=` and `w_unlabeled=`) on the same arrays."""

import numpy as np
import pytest

from leaderboard.stats.ppi import ppi_mean

ppi_py = pytest.importorskip("ppi_py")

TOL = 1e-9


def _weighted(seed: int, n: int, big_n: int, noise: float):
    rng = np.random.default_rng(seed)
    truth_l = rng.uniform(0, 100, n)
    truth_u = rng.uniform(0, 100, big_n)
    y = np.clip(truth_l + rng.normal(0, noise, n), 0, 100)
    yhat = np.clip(truth_l + rng.normal(3, noise, n), 0, 100)
    yhat_u = np.clip(truth_u + rng.normal(3, noise, big_n), 0, 100)
    probability = rng.uniform(0.1, 0.9, n)
    probability_u = rng.uniform(0.1, 0.9, big_n)
    return y, yhat, yhat_u, 1 / probability, 1 / (1 - probability_u)


@pytest.mark.parametrize(
    ("seed", "n", "big_n", "noise"),
    [(1, 30, 70, 5.0), (2, 12, 300, 20.0), (3, 200, 25, 60.0), (4, 40, 400, 0.5)],
)
def test_weighted_estimate_interval_and_lambda_equal_ppi_py(seed, n, big_n, noise):
    y, yhat, yhat_u, w, w_u = _weighted(seed, n, big_n, noise)
    fit = ppi_mean(y=y, yhat=yhat, yhat_unlabelled=yhat_u, w=w, w_unlabelled=w_u)
    reference = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u, w=w, w_unlabeled=w_u)
    assert fit.corrected == pytest.approx(float(np.ravel(reference)[0]), abs=TOL, rel=0)
    low, high = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, w=w, w_unlabeled=w_u)
    assert fit.interval() == pytest.approx((float(low[0]), float(high[0])), abs=TOL, rel=0)
    # The same interval with lambda fixed at ours: lambda is the reference's too.
    low, high = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=fit.lam, w=w, w_unlabeled=w_u)
    assert fit.interval() == pytest.approx((float(low[0]), float(high[0])), abs=TOL, rel=0)
    # Weights that differ change the estimate: they are used, not dropped.
    plain = ppi_mean(y=y, yhat=yhat, yhat_unlabelled=yhat_u)
    assert abs(plain.corrected - fit.corrected) > 1e-6
    # The influences still add up to the variance, so rank sets and the bias test see it.
    assert sum(v * v for v in fit.influence.values()) == pytest.approx(fit.se**2, rel=1e-12)
    assert fit.bias == pytest.approx(fit.judge - fit.corrected, abs=TOL)
    assert fit.weighted is True and plain.weighted is False


@pytest.mark.parametrize("weight", [1.0, 1 / 0.3, 7.123456789])
def test_equal_weights_give_the_unweighted_fit_bit_for_bit(weight):
    rng = np.random.default_rng(7)
    y, yhat, yhat_u = rng.uniform(0, 100, 40), rng.uniform(0, 100, 40), rng.uniform(0, 100, 90)
    plain = ppi_mean(y=y, yhat=yhat, yhat_unlabelled=yhat_u)
    weighted = ppi_mean(
        y=y, yhat=yhat, yhat_unlabelled=yhat_u, w=[weight] * 40, w_unlabelled=[2 * weight] * 90
    )
    assert weighted == plain


def test_weights_that_do_not_fit_are_refused():
    with pytest.raises(ValueError, match="weight"):
        ppi_mean(y=[1.0] * 12, yhat=[1.0] * 12, yhat_unlabelled=[2.0], w=[1.0] * 11)
    with pytest.raises(ValueError, match="weight"):
        ppi_mean(y=[1.0] * 12, yhat=[1.0] * 12, yhat_unlabelled=[2.0], w_unlabelled=[float("inf")])
    with pytest.raises(ValueError, match="weight"):
        ppi_mean(y=[1.0] * 12, yhat=[1.0] * 12, yhat_unlabelled=[2.0], w=[0.0] + [1.0] * 11)


def test_a_systems_scores_weigh_each_response_by_its_chance_of_being_drawn():
    from dataclasses import replace

    from leaderboard.stats.ppi_quantities import system_quantities
    from tests.leaderboard.test_stats_ppi_quantities import _system

    pairs, _experts = _system(3, cases=90, labelled=40)
    rng = np.random.default_rng(5)
    chances = rng.uniform(0.2, 0.8, len(pairs))
    weighted = [replace(p, probability=float(c)) for p, c in zip(pairs, chances, strict=True)]
    arrays = system_quantities(weighted, "heartbench").overall
    labelled = chances[:40]
    assert arrays.w == pytest.approx(list(1 / labelled), rel=1e-15)
    assert arrays.w_unlabelled == pytest.approx(list(1 / (1 - chances[40:])), rel=1e-15)
    fit = arrays.fit()
    y, yhat, yhat_u = (np.array(a) for a in (arrays.y, arrays.yhat, arrays.yhat_unlabelled))
    low, high = ppi_py.ppi_mean_ci(
        y, yhat, yhat_u, alpha=0.05, w=1 / labelled, w_unlabeled=1 / (1 - chances[40:])
    )
    assert fit.interval() == pytest.approx((float(low[0]), float(high[0])), abs=TOL, rel=0)
    # One response of unknown chance: the set is not weighted (no guess at its chance).
    unknown = [replace(weighted[0], probability=None), *weighted[1:]]
    assert system_quantities(unknown, "heartbench").overall.w is None
    # The same chance for every response (either design today): exactly the plain fit.
    same = [replace(p, probability=0.3) for p in pairs]
    assert system_quantities(same, "heartbench").overall.fit() == (
        system_quantities(pairs, "heartbench").overall.fit()
    )
