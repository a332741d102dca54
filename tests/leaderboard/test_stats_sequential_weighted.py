"""The anytime-valid gate on rounds drawn with unequal chances, as pure functions: weighted
by each item's chance ratio it stays within its error rate at the threshold, where the
unweighted test on the same draws is badly wrong; a clearly good judge still passes, at the
cost of more items; equal chances give the unweighted test bit for bit."""

import dataclasses

import numpy as np
import pytest

from leaderboard.stats.sequential import EPSILON, PASS, sequential_gate, sequential_history
from leaderboard.stats.sequential_weighted import (
    Design,
    chance_ratios,
    simulated_decisions,
    simulated_rounds,
    weighted_share,
)

ROUNDS = 2000
ALPHA = 0.05


def _allowance(rate: float, n: int) -> float:
    # Three standard errors of a proportion estimated from n rounds.
    return 3 * (rate * (1 - rate) / n) ** 0.5


# Chances in [0.1, 1]: with a positive tilt the responses drawn more often are those the
# judge agrees on less (sampled where it is unsure); with a negative one, more.
@pytest.mark.parametrize("tilt", [0.3, -0.3])
def test_at_the_threshold_it_passes_or_fails_wrongly_in_at_most_alpha_of_rounds(tilt):
    design = Design(tilt=tilt)
    decision, _used = simulated_decisions(
        design, truth=0.75, threshold=0.75, items=800, rounds=ROUNDS, seed=31
    )
    assert float(np.mean(decision == 1)) <= ALPHA + _allowance(ALPHA, ROUNDS)
    assert float(np.mean(decision == -1)) <= ALPHA + _allowance(ALPHA, ROUNDS)
    # Unweighted, the same draws test the sample's share, not the responses': it fails (or
    # passes) the judge at the threshold in most rounds.
    plain, _used = simulated_decisions(
        design, truth=0.75, threshold=0.75, items=800, rounds=ROUNDS, seed=31, weighted=False
    )
    wrong = float(np.mean(plain == (-1 if tilt > 0 else 1)))
    assert wrong >= 0.9


@pytest.mark.parametrize("items", [20, 60])
def test_short_rounds_that_may_not_hold_the_designs_smallest_chance_stay_within_alpha(items):
    # The uncertainty design at floor 0.1: the surest responses are drawn at 0.028, so a
    # short round often holds none of them and takes its smallest chance from the rest.
    design = Design(chances=(0.028, 0.241, 0.455, 0.668, 1.0))
    decision, _used = simulated_decisions(
        design, truth=0.75, threshold=0.75, items=items, rounds=4 * ROUNDS, seed=43
    )
    rounds = 4 * ROUNDS
    assert float(np.mean(decision == 1)) <= ALPHA + _allowance(ALPHA, rounds)
    assert float(np.mean(decision == -1)) <= ALPHA + _allowance(ALPHA, rounds)


def test_a_clearly_good_judge_passes_at_the_cost_of_more_items(capsys):
    design = Design()
    decision, used = simulated_decisions(
        design, truth=0.9, threshold=0.75, items=1000, rounds=ROUNDS, seed=37
    )
    uniform, uniform_used = simulated_decisions(
        design, truth=0.9, threshold=0.75, items=1000, rounds=ROUNDS, seed=37, uniform=True
    )
    assert float(np.mean(decision == 1)) >= 0.99
    assert float(np.mean(uniform == 1)) >= 0.99
    weighted_items, uniform_items = float(np.median(used)), float(np.median(uniform_used))
    with capsys.disabled():
        print(
            f"\nmedian items to pass at 0.9 against 0.75: weighted {weighted_items:g}, "
            f"uniform sampling of the same size {uniform_items:g}"
        )
    # The weighted items count about mean(ratio) of themselves (here about 0.28), and the
    # bets are at their bound either way: about three times the items. Measured 67 and 21.
    assert uniform_items < weighted_items <= 80


def test_the_smallest_chance_of_a_simulated_round_is_the_designs():
    rng = np.random.default_rng(3)
    agree, units, chance = simulated_rounds(rng, Design(), truth=0.75, rounds=200, items=300)
    assert set(np.unique(chance)) <= set(Design().chances)
    assert (chance.min(axis=-1) == 0.1).all()
    assert ((agree >= 0) & (agree <= units)).all()
    # Drawn in proportion to share times chance: the rarest-chance kind is 0.04 / 0.36.
    assert float(np.mean(chance == 0.1)) == pytest.approx(0.04 / 0.36, abs=0.01)
    with pytest.raises(ValueError, match="outside"):
        Design(tilt=2.0).agreement(0.75)


def test_equal_chances_give_the_unweighted_test_bit_for_bit():
    rng = np.random.default_rng(5)
    units = rng.integers(4, 13, size=250)
    agree = rng.binomial(units, 0.82)
    plain = sequential_gate(agree, units, threshold=0.75, max_units=14)
    ratios = chance_ratios([1 / 0.3] * 250)
    assert set(ratios) == {1.0}
    same = sequential_gate(agree, units, threshold=0.75, max_units=14, ratios=ratios)
    assert same.weighted and not plain.weighted
    assert dataclasses.replace(same, weighted=False) == plain
    assert "weighted" not in plain.as_dict() and same.as_dict()["weighted"] is True
    # Through a history whose rounds are weighted, or not, alike.
    rounds = [list(zip(agree[:100].tolist(), units[:100].tolist(), strict=True))] * 2
    mixed = sequential_history(rounds, threshold=0.75, ratios=[None, [1.0] * 100])
    assert dataclasses.replace(mixed, weighted=False) == sequential_history(rounds, threshold=0.75)


def _wealth_by_hand(tallies, ratios, scale, m):
    """The pass test's wealth in plain Python: aGRAPA on each item's excess times its chance
    ratio, from one imagined item (mean 0, second moment m (1 - m) / U), bets in
    [0, 0.95 / m]."""
    sums, squares, seen, wealth = 0.0, m * (1 - m) / scale, 1, 1.0
    for (agree, units), ratio in zip(tallies, ratios, strict=True):
        y = (agree - m * units) / scale * ratio
        bet = min(max((sums / seen) / (squares / seen), 0.0), 0.95 / m)
        wealth *= 1 + bet * y
        sums, squares, seen = sums + y, squares + y * y, seen + 1
    return wealth


def test_the_weighted_betting_matches_a_plain_loop():
    rng = np.random.default_rng(41)
    units = rng.integers(3, 9, size=120)
    agree = rng.binomial(units, 0.85)
    chances = rng.choice([0.1, 0.25, 0.6, 1.0], size=120)
    ratios = chance_ratios(1 / chances)
    assert ratios == pytest.approx(tuple(0.1 / chances))
    gate = sequential_gate(agree, units, threshold=0.75, max_units=9, ratios=ratios)
    pairs = list(zip(agree.tolist(), units.tolist(), strict=True))
    assert gate.e_pass == pytest.approx(_wealth_by_hand(pairs, ratios, 9, 0.75))
    # The Hájek share of the units: agreeing units over units, each weighted 1 / chance.
    assert weighted_share(pairs, ratios) == pytest.approx(
        float(np.sum(agree / chances) / np.sum(units / chances))
    )
    assert weighted_share([], []) is None


def test_no_item_can_take_more_than_the_bound_allows():
    # Items at high chances that all agree push the bet to its bound; then an item drawn at
    # the round's smallest chance on which every criterion disagrees: the wealth keeps at
    # least eps of itself, as it does unweighted.
    agree, units = [6] * 30 + [0], [6] * 31
    ratios = [0.1] * 30 + [1.0]
    gate = sequential_gate(agree, units, threshold=0.75, max_units=6, ratios=ratios)
    assert max(gate.bets) == pytest.approx((1 - EPSILON) / 0.75)
    before = sequential_gate(agree[:30], units[:30], threshold=0.75, max_units=6, ratios=ratios)
    assert gate.e_pass >= EPSILON * before.e_pass - 1e-12
    assert gate.e_pass > 0


def test_bad_chances_are_refused():
    with pytest.raises(ValueError, match="finite and positive"):
        chance_ratios([1.0, 0.0])
    with pytest.raises(ValueError, match="finite and positive"):
        chance_ratios([1.0, float("inf")])
    with pytest.raises(ValueError, match="one chance ratio in"):
        sequential_gate([1, 2], [2, 2], threshold=0.75, ratios=[1.0])
    with pytest.raises(ValueError, match="one chance ratio in"):
        sequential_gate([1], [2], threshold=0.75, ratios=[1.5])
    with pytest.raises(ValueError, match="one list of chance ratios per round"):
        sequential_history([[(1, 2)]], threshold=0.75, ratios=[None, None])


def test_a_weighted_decision_is_a_decision():
    gate = sequential_gate([4] * 80, [4] * 80, threshold=0.75, ratios=[0.5] * 80)
    assert gate.decision == PASS and gate.weighted
