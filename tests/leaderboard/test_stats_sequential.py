"""The anytime-valid gate, validated by simulation as pure functions: it stays within its
error rate at the threshold, and it decides quickly when the judge is clearly good."""

import numpy as np
import pytest

from leaderboard.stats.sequential import (
    CONTINUE,
    FAIL,
    PASS,
    sequential_gate,
    simulated_decisions,
)

ROUNDS = 2000


def _monte_carlo_allowance(rate: float, n: int) -> float:
    # Three standard errors of a proportion estimated from n rounds.
    return 3 * (rate * (1 - rate) / n) ** 0.5


@pytest.mark.parametrize("within_item_sd", [0.0, 0.15])
def test_at_the_threshold_it_wrongly_passes_in_at_most_alpha_of_rounds(within_item_sd):
    decision, _used = simulated_decisions(
        true_agreement=0.75,
        threshold=0.75,
        items=400,
        units_per_item=10,
        rounds=ROUNDS,
        seed=11,
        within_item_sd=within_item_sd,
    )
    wrong = float(np.mean(decision == 1))
    assert wrong <= 0.05 + _monte_carlo_allowance(0.05, ROUNDS)


def test_below_the_threshold_it_rarely_passes_and_often_fails():
    decision, _used = simulated_decisions(
        true_agreement=0.65, threshold=0.75, items=400, units_per_item=10, rounds=ROUNDS, seed=5
    )
    assert float(np.mean(decision == 1)) <= 0.05
    assert float(np.mean(decision == -1)) >= 0.95


def test_a_clearly_good_judge_passes_in_at_least_95_percent_of_rounds():
    decision, used = simulated_decisions(
        true_agreement=0.90,
        threshold=0.75,
        items=400,
        units_per_item=10,
        rounds=ROUNDS,
        seed=3,
        within_item_sd=0.1,
    )
    assert float(np.mean(decision == 1)) >= 0.95
    # ...and long before the 400 items are rated.
    assert float(np.median(used[decision == 1])) < 100


def test_the_decision_on_a_round_and_its_confidence_sequence():
    rng = np.random.default_rng(1)
    units = rng.integers(8, 13, size=300)
    agree = rng.binomial(units, 0.9)
    gate = sequential_gate(agree, units, threshold=0.75)
    assert gate.decision == PASS and gate.decided_at is not None and gate.decided_at < 300
    assert gate.cs_low > 0.75 and gate.cs_low <= agree.sum() / units.sum() <= gate.cs_high
    # The sequence only narrows.
    lows = [low for low, _ in gate.cs_path]
    highs = [high for _, high in gate.cs_path]
    assert lows == sorted(lows) and highs == sorted(highs, reverse=True)
    assert gate.e_pass >= 20 and gate.as_dict()["cs"] == [gate.cs_low, gate.cs_high]


def test_a_poor_judge_fails_and_few_items_continue():
    units = [10] * 200
    agree = [5] * 200
    assert sequential_gate(agree, units, threshold=0.75).decision == FAIL
    early = sequential_gate([9, 8], [10, 10], threshold=0.75)
    assert early.decision == CONTINUE and early.decided_at is None
    none = sequential_gate([], [], threshold=0.75)
    assert none.decision == CONTINUE and none.cs_low is None


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        sequential_gate([11], [10], threshold=0.75)
    with pytest.raises(ValueError):
        sequential_gate([1], [10], threshold=1.0)
