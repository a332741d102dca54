"""The drift test on anchors, as pure functions: without drift it flags in at most alpha of
simulated histories, and a drift is flagged within the runs its planning says."""

import numpy as np
import pytest

from leaderboard.stats.drift import (
    DRIFTED,
    NO_REFERENCE,
    STEADY,
    drift_test,
    planned_runs,
    simulated_runs_to_flag,
)

SIZES = [5, 6, 7, 8, 9, 10] * 5  # 30 anchor responses, 225 units
HISTORIES = 1000


def _allowance(rate: float, n: int) -> float:
    return 3 * (rate * (1 - rate) / n) ** 0.5


@pytest.mark.parametrize(("agreement", "icc"), [(0.8, 0.0), (0.6, 0.1), (0.9, 0.3)])
def test_without_drift_it_flags_in_at_most_alpha_of_histories(agreement, icc):
    at = simulated_runs_to_flag(
        sizes=SIZES,
        agreement=agreement,
        drifted=agreement,
        later_runs=30,
        simulations=HISTORIES,
        seed=7,
        icc=icc,
    )
    assert float(np.mean(at <= 30)) <= 0.05 + _allowance(0.05, HISTORIES)


@pytest.mark.parametrize("drift", [-0.2, -0.3, 0.1])
def test_a_drift_is_flagged_within_the_planned_runs_in_the_planned_share(drift):
    planned = planned_runs(sizes=SIZES, agreement=0.8, drift=drift, power=0.8, seed=1)
    assert planned is not None
    # Fresh histories (another seed) flag within the planned runs about as often as planned.
    at = simulated_runs_to_flag(
        sizes=SIZES,
        agreement=0.8,
        drifted=0.8 + drift,
        later_runs=planned,
        simulations=HISTORIES,
        seed=99,
    )
    assert float(np.mean(at <= planned)) >= 0.8 - _allowance(0.8, HISTORIES)


def test_a_drift_too_small_for_the_horizon_is_not_planned_as_detectable():
    assert planned_runs(sizes=SIZES, agreement=0.8, drift=-0.02, horizon=5) is None


def test_the_reference_runs_come_first():
    state = drift_test([[4] * 30], SIZES)
    assert state.state == NO_REFERENCE and state.reference_low is None


def test_identical_runs_never_flag_and_a_collapse_does():
    rng = np.random.default_rng(3)
    run = rng.binomial(np.array(SIZES), 0.8).tolist()
    steady = drift_test([run] * 12, SIZES)
    assert steady.state == STEADY and steady.runs_tested == 10
    assert steady.reference_low <= sum(run) / sum(SIZES) <= steady.reference_high
    worse = [rng.binomial(np.array(SIZES), 0.3).tolist() for _ in range(3)]
    flagged = drift_test([run, run, *worse], SIZES)
    assert flagged.state == DRIFTED and flagged.direction == "lower"
    assert flagged.flagged_at_run == 2 and flagged.e_value >= flagged.level == 80.0
    assert flagged.as_dict()["state"] == DRIFTED


def test_bad_input_is_refused_with_a_reason():
    with pytest.raises(ValueError, match="agree <= units"):
        drift_test([[11] * 30], SIZES)
    with pytest.raises(ValueError, match="one agreeing count per anchor"):
        drift_test([[1] * 29], SIZES)
    with pytest.raises(ValueError, match="alpha"):
        drift_test([], SIZES, alpha=0.7)
    with pytest.raises(ValueError, match="unit count"):
        drift_test([], [])
