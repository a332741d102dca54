"""The anytime-valid gate, validated by simulation as pure functions: it stays within its
error rate at the threshold, and it decides quickly when the judge is clearly good."""

import numpy as np
import pytest

from leaderboard.stats.sequential import (
    CONTINUE,
    FAIL,
    PASS,
    sequential_gate,
    sequential_history,
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


# The sizes of HeartBench's public rubrics (criteria per case: count of cases).
HEARTBENCH_SIZES = {4: 3, 5: 5, 6: 11, 7: 24, 8: 25, 9: 41, 10: 55, 11: 36, 12: 31, 13: 23,
                    14: 17, 15: 11, 16: 3, 17: 3, 18: 3, 19: 2, 20: 2, 23: 1}  # fmt: skip


def _heartbench_sizes() -> list[int]:
    return [size for size, cases in HEARTBENCH_SIZES.items() for _ in range(cases)]


def test_a_bet_reaches_the_validity_bound_but_never_passes_it():
    # Items that all agree fully: the aGRAPA bet wants far more than the bound allows, so
    # every bet is the bound, (1 - eps) / m of the wealth per unit of excess.
    units = [10] * 8
    gate = sequential_gate(units, units, threshold=0.75, max_units=10)
    assert gate.bets[0] < gate.bets[-1] == pytest.approx(0.95 / 0.75)
    assert max(gate.bets) <= 0.95 / 0.75
    # The worst item the bound allows (every unit of the largest item disagrees) leaves
    # the wealth positive.
    worst = sequential_gate([10] * 8 + [0], [10] * 9, threshold=0.75, max_units=10)
    assert worst.e_pass > 0


def test_wealth_carries_over_from_round_to_round():
    rng = np.random.default_rng(7)
    first = [(int(a), 10) for a in rng.binomial(10, 0.55, size=30)]
    second = [(int(a), 12) for a in rng.binomial(12, 0.9, size=30)]
    history = sequential_history([first, second], threshold=0.75, max_units=[10, 12])
    # The first round alone fails the judge; the second's good items cannot undo it.
    assert sequential_history([first], threshold=0.75, max_units=[10]).decision == FAIL
    assert history.decision == FAIL and history.decided_at <= 30
    assert history.items_used == 60 and history.round_items == (30, 30)
    # The second round alone would pass: a fresh start would have shopped for a pass.
    assert sequential_history([second], threshold=0.75, max_units=[12]).decision == PASS
    # One round through the history is the single-round gate.
    single = sequential_gate([a for a, _ in first], [u for _, u in first], threshold=0.75)
    alone = sequential_history([first], threshold=0.75)
    assert (alone.e_pass, alone.e_fail, alone.cs_path) == (
        single.e_pass, single.e_fail, single.cs_path,
    )  # fmt: skip


def test_the_history_refuses_bad_tallies():
    with pytest.raises(ValueError, match="round 2"):
        sequential_history([[(1, 2)], [(3, 2)]], threshold=0.75)
    with pytest.raises(ValueError, match="one most-units value per round"):
        sequential_history([[(1, 2)]], threshold=0.75, max_units=[2, 3])
    with pytest.raises(ValueError, match="at least the units of its largest item"):
        sequential_history([[(1, 5)]], threshold=0.75, max_units=[4])


@pytest.mark.parametrize("icc", [0.0, 0.1, 0.3])
def test_heartbench_sized_rounds_stay_within_alpha_at_the_threshold(icc):
    decision, _used = simulated_decisions(
        true_agreement=0.75,
        threshold=0.75,
        items=300,
        sizes=_heartbench_sizes(),
        icc=icc,
        rounds=ROUNDS,
        seed=17,
    )
    assert float(np.mean(decision == 1)) <= 0.05


def test_heartbench_sized_rounds_decide_within_the_measured_items():
    # At 0.85 against 0.75, on HeartBench's rubric sizes scaled by the largest (23), the
    # capped bets (0.5 / m) needed a median of about 104 items; at (1 - eps) / m, 60 or less.
    decision, used = simulated_decisions(
        true_agreement=0.85,
        threshold=0.75,
        items=300,
        sizes=_heartbench_sizes(),
        icc=0.1,
        rounds=ROUNDS,
        seed=19,
    )
    assert float(np.mean(decision == 1)) >= 0.99
    assert float(np.median(used)) <= 62


def _wealth_by_hand(rounds, scales, m):
    """The pass test's wealth, item by item in plain Python: aGRAPA from one imagined item
    (mean 0, second moment m (1 - m) / U of the first round), bets in [0, 0.95 / m]."""
    sums, squares, seen = 0.0, m * (1 - m) / scales[0], 1
    wealth = 1.0
    for tallies, scale in zip(rounds, scales, strict=True):
        for agree, units in tallies:
            x = (agree - m * units) / scale
            bet = min(max((sums / seen) / (squares / seen), 0.0), 0.95 / m)
            wealth *= 1 + bet * x
            sums, squares, seen = sums + x, squares + x * x, seen + 1
    return wealth


def test_the_betting_matches_a_plain_loop_across_rounds():
    rng = np.random.default_rng(23)
    first = [(int(a), int(u)) for u in rng.integers(4, 12, size=25) for a in [rng.binomial(u, 0.8)]]
    second = [
        (int(a), int(u)) for u in rng.integers(4, 20, size=25) for a in [rng.binomial(u, 0.8)]
    ]
    gate = sequential_history([first, second], threshold=0.75, max_units=[12, 20])
    assert gate.e_pass == pytest.approx(_wealth_by_hand([first, second], [12, 20], 0.75))


@pytest.mark.parametrize("icc", [0.1, 0.3])
def test_simulated_criteria_of_one_item_are_correlated_at_the_icc(icc):
    from leaderboard.stats.sequential import simulated_agreement

    rng = np.random.default_rng(29)
    units = np.full(200_000, 2.0)
    agree = simulated_agreement(rng, units, mean=0.85, icc=icc)
    # Two criteria per item: split each item's count into its two indicators at random.
    first = rng.random(units.size) < agree / 2
    second = agree - first
    assert np.corrcoef(first, second)[0, 1] == pytest.approx(icc, abs=0.02)
    assert agree.sum() / units.sum() == pytest.approx(0.85, abs=0.005)
