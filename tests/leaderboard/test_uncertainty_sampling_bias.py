"""Simulated rounds sampled more where the judge is unsure (bench/uncertainty_sampling.py):
the agreement share weighted by inverse chances hits the population's share on average,
while the plain share of the same draws misses it; uniform draws are unaffected."""

import pytest

from bench.uncertainty_sampling import Design, run


@pytest.mark.parametrize("seed", [0, 1])
def test_the_weighted_share_is_unbiased_under_the_uncertainty_design(seed):
    result = run(Design(cases=150), rounds=200, seed=seed)
    drawn, uniform = result["uncertainty"], result["uniform"]
    assert drawn["rounds"] == uniform["rounds"] == 200
    # Mean error within three Monte-Carlo standard errors of 0.
    assert abs(drawn["bias"]) < 3 * drawn["bias_se"]
    assert abs(uniform["bias"]) < 3 * uniform["bias_se"]
    # Unweighted, the over-drawn uncertain responses drag the share down.
    assert drawn["plain_bias"] < -10 * drawn["bias_se"]
    # The same expected size: the designs differ in whom they draw, not how many.
    assert drawn["mean_size"] == pytest.approx(uniform["mean_size"], rel=0.03)
