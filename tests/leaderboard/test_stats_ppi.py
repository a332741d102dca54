"""The PPI++ mean against ppi_py, the authors' implementation, on the same arrays."""

import numpy as np
import pytest

from leaderboard.stats.ppi import MIN_LABELLED, TOO_FEW_LABELLED, power_tuning, ppi_mean

ppi_py = pytest.importorskip("ppi_py")
baselines = pytest.importorskip("ppi_py.baselines")

TOL = 1e-9


def _arrays(seed: int, n: int, big_n: int, *, noise: float, scale: float = 100.0):
    rng = np.random.default_rng(seed)
    truth_l = rng.uniform(0, scale, n)
    truth_u = rng.uniform(0, scale, big_n)
    y = np.clip(truth_l + rng.normal(0, noise, n), 0, scale)
    yhat = np.clip(truth_l + rng.normal(3, noise, n), 0, scale)
    yhat_u = np.clip(truth_u + rng.normal(3, noise, big_n), 0, scale)
    return y, yhat, yhat_u


CASES = [
    (1, 30, 70, 5.0),
    (2, 12, 300, 20.0),
    (3, 50, 50, 1.0),
    (4, 200, 25, 60.0),  # a poor judge: lambda near 0
    (5, 40, 400, 0.5),  # a near-perfect judge
]


@pytest.mark.parametrize(("seed", "n", "big_n", "noise"), CASES)
def test_estimate_interval_and_lambda_equal_ppi_py(seed, n, big_n, noise):
    y, yhat, yhat_u = _arrays(seed, n, big_n, noise=noise)
    fit = ppi_mean(y=y, yhat=yhat, yhat_unlabelled=yhat_u)

    assert fit.corrected == pytest.approx(
        float(ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u)[0]), abs=TOL, rel=0
    )
    low, high = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05)
    mine = fit.interval()
    assert mine[0] == pytest.approx(float(low[0]), abs=TOL, rel=0)
    assert mine[1] == pytest.approx(float(high[0]), abs=TOL, rel=0)

    grads = (y - y.mean())[:, None]
    grads_hat = (yhat - yhat.mean())[:, None]
    reference_lam = ppi_py.ppi._calc_lam_glm(
        grads, grads_hat, (yhat_u - yhat.mean())[:, None], np.eye(1), clip=True
    )
    assert fit.lam == pytest.approx(float(reference_lam), abs=TOL, rel=0)
    # And with lambda fixed at what we estimated, the reference gives the same interval.
    low, high = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=fit.lam)
    assert mine[0] == pytest.approx(float(low[0]), abs=TOL, rel=0)


def test_lambda_is_clipped_to_the_unit_interval():
    rng = np.random.default_rng(8)
    y = rng.uniform(0, 100, 40)
    # A judge that halves the spread: the unclipped weight is near 2.
    assert power_tuning(y, y / 2, rng.uniform(0, 50, 400)) == 1.0
    y = rng.uniform(0, 100, 50)
    assert power_tuning(y, 100 - y, rng.uniform(0, 100, 50)) == 0.0


def test_clipped_lambda_gives_the_reference_interval():
    rng = np.random.default_rng(10)
    y = rng.uniform(0, 100, 40)
    yhat, yhat_u = y / 2 + rng.normal(0, 1, 40), rng.uniform(0, 50, 400)
    fit = ppi_mean(y=y, yhat=yhat, yhat_unlabelled=yhat_u)
    assert fit.lam == 1.0
    low, high = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05)
    assert fit.interval() == pytest.approx((float(low[0]), float(high[0])), abs=TOL, rel=0)
    assert fit.corrected == pytest.approx(
        float(ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u)[0]), abs=TOL, rel=0
    )


def test_lambda_zero_and_one_are_the_classical_and_plain_ppi_intervals():
    y, yhat, yhat_u = _arrays(9, 30, 90, noise=10.0)
    classical = baselines.classical_mean_ci(y, alpha=0.05)
    fit = ppi_mean(y=y, yhat=yhat, yhat_unlabelled=yhat_u, lam=0.0)
    assert fit.interval()[0] == pytest.approx(float(classical[0]), abs=TOL, rel=0)
    assert fit.interval()[1] == pytest.approx(float(classical[1]), abs=TOL, rel=0)
    plain = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=1.0)
    fit = ppi_mean(y=y, yhat=yhat, yhat_unlabelled=yhat_u, lam=1.0)
    assert fit.interval()[1] == pytest.approx(float(plain[1][0]), abs=TOL, rel=0)


def test_influences_add_up_to_the_variance_and_bias_is_judge_minus_corrected():
    y, yhat, yhat_u = _arrays(11, 25, 75, noise=8.0)
    fit = ppi_mean(y=y, yhat=yhat, yhat_unlabelled=yhat_u)
    assert sum(v * v for v in fit.influence.values()) == pytest.approx(fit.se**2, rel=1e-12)
    judge = np.concatenate([yhat, yhat_u]).mean()
    assert fit.judge == pytest.approx(judge, abs=TOL)
    assert fit.bias == pytest.approx(judge - fit.corrected, abs=TOL)
    assert fit.bias_interval()[0] < fit.bias < fit.bias_interval()[1]
    # The experts-only interval on the same responses is n / effective_n times as wide,
    # squared.
    classical = baselines.classical_mean_ci(y, alpha=0.05)
    ratio = (classical[1] - classical[0]) / (fit.interval()[1] - fit.interval()[0])
    assert fit.effective_n == pytest.approx(len(y) * ratio**2, rel=1e-9)


def test_too_few_labelled_responses_is_undefined_with_a_reason_not_a_number():
    y, yhat, yhat_u = _arrays(12, MIN_LABELLED - 1, 50, noise=5.0)
    fit = ppi_mean(y=y, yhat=yhat, yhat_unlabelled=yhat_u)
    assert fit.reason == TOO_FEW_LABELLED
    assert fit.corrected is None and fit.interval() is None and fit.effective_n is None
    assert fit.judge == pytest.approx(np.concatenate([yhat, yhat_u]).mean())


def test_every_response_labelled_gives_the_experts_own_mean():
    y, yhat, _ = _arrays(13, 40, 0, noise=5.0)
    fit = ppi_mean(y=y, yhat=yhat, yhat_unlabelled=[])
    assert fit.lam == 0.0
    assert fit.corrected == pytest.approx(y.mean(), abs=TOL)
    classical = baselines.classical_mean_ci(y, alpha=0.05)
    assert fit.interval()[0] == pytest.approx(float(classical[0]), abs=TOL, rel=0)


def test_mismatched_or_non_finite_input_is_refused():
    with pytest.raises(ValueError, match="one length"):
        ppi_mean(y=[1.0, 2.0], yhat=[1.0], yhat_unlabelled=[])
    with pytest.raises(ValueError, match="finite"):
        ppi_mean(y=[1.0, float("nan")], yhat=[1.0, 2.0], yhat_unlabelled=[])


def test_a_response_named_twice_is_refused():
    with pytest.raises(ValueError, match="distinct key"):
        ppi_mean(
            y=[1.0, 2.0],
            yhat=[1.0, 2.0],
            yhat_unlabelled=[3.0],
            keys=["a", "b"],
            unlabelled_keys=["a"],
        )
