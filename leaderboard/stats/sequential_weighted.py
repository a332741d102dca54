"""The anytime-valid gate on a round that drew its responses with unequal chances (no Django).

A round drawn by system, or more where the judge is unsure, holds each response with its own
chance pi_i (recorded on its item, fixed when the round is drawn, before anyone rates).
Unweighted, the stream of items over-represents the responses drawn more often, and the
tests of leaderboard.stats.sequential would test the sample's plain share, not the
responses'. Weighted as every other estimator of the round is (active statistical
inference, Zrnic and Candès, ICML 2024), the gate tests the responses' agreement.

What is weighted. Each item's excess x_i (leaderboard.stats.sequential) is multiplied by
its chance ratio r_i = pi_min / pi_i, where pi_min is the smallest chance of any item of the
round: an item drawn at the smallest chance counts fully, one drawn twice as often counts
half. The ratio is the item's inverse-probability weight 1 / pi_i scaled by the round's
largest one, so it lies in (0, 1], and with equal chances it is exactly 1.0 for every item:
the test is then today's, bit for bit. Nothing else changes: the aGRAPA bets, their bound
(1 - eps) / m, the threshold 1 / alpha and the carrying of wealth from round to round.

Why it is valid. Treat the round's responses, as the unweighted test does, as draws from
the population the round samples, each response with its chance pi (a fixed function of the
response, set by the design). A response is drawn with probability pi on its own (Poisson
sampling; stratified designs are the fixed-size analogue), and the drawn ones are handed
out in a seeded random order, so the items arrive one after another as independent draws
from the population tilted by pi: a response of chance pi is pi / E[pi] times as likely as
under uniform sampling. Whatever came before, the next item's weighted excess therefore has
mean

    E[r x] = E_tilted[pi_min x / pi] = pi_min E[pi x / pi] / E[pi] = pi_min E[x] / E[pi],

which has the sign of the population's mean excess E[x]: at most 0 when the responses'
agreement is at most m (the pass test's null), at least 0 when it is at least m (the fail
test's). Each bet lambda_i >= 0 is chosen from the items before i only and never exceeds
(1 - eps) / m; since r_i <= 1, the item's weighted excess is at least -m, so
1 + lambda_i r_i x_i >= eps > 0 whatever the item shows. The pass test's wealth
prod(1 + lambda_i r_i x_i) is thus a nonnegative supermartingale under its null, and by
Ville's inequality it reaches 1 / alpha with probability at most alpha, however often
anyone looks; the fail test (on -r x, bets at most (1 - eps) / (1 - m)) likewise, and so
the confidence sequence. The bet must not depend on the next item's own chance: when the
chance says something about the agreement (the judge unsure, the experts less likely to
agree with it), a bet sized by pi_i would stake most where the excess is positive. Only
pi_min, known before any rating, enters every bet alike; the test in
tests/leaderboard/test_stats_sequential_weighted.py checks the level by simulation, with
pi_min taken from each simulated round as the report takes it.

The cost. An item counts r_i of itself, so the weighted excess is smaller than the plain
one while the bound on the bets stays: where the unweighted bets already reach the bound (a
clearly good judge), the weighted test needs about 1 / mean(r) times the items. Chances in
[0.1, 1] give mean ratios near 0.3, and about three times the items; the uncertainty
design's default floor keeps the chances within a factor of a few and costs less
(python -m bench.sequential_weighted prints both). The weighted share of the fixed sample
and its interval (leaderboard.stats.weighted_share) are still given beside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.stats.sequential import DEFAULT_ALPHA, batch_decisions


def chance_ratios(weights: Sequence[float]) -> tuple[float, ...]:
    """Each item's chance ratio pi_min / pi_i from its weight 1 / pi_i, over every item of
    the round (those not yet rated too: the largest weight is known when the round is
    drawn): the weight over the round's largest, exactly 1.0 when all are equal."""
    values = [float(w) for w in weights]
    if any(not math.isfinite(w) or w <= 0 for w in values):
        raise ValueError("weights must be finite and positive, one per item")
    largest = max(values, default=1.0)
    return tuple(w / largest for w in values)


def weighted_share(tallies: Sequence[tuple[int, int]], ratios: Sequence[float]) -> float | None:
    """The agreement the weighted test reads: agreeing units over units, each item's
    counted by its chance ratio (the Hájek share of its units). None without units."""
    agree = sum(r * a for (a, _u), r in zip(tallies, ratios, strict=False))
    units = sum(r * u for (_a, u), r in zip(tallies, ratios, strict=False))
    return agree / units if units else None


@dataclass(frozen=True)
class Design:
    """A simulated population of responses of a few kinds: each kind's share of the
    responses, its chance of being drawn, and how its agreement departs from the
    population's: by `tilt` per unit of chance above the population's mean chance (a
    positive tilt: the more often drawn, the less the judge agrees, as where it is unsure).
    `units` criteria per response."""

    shares: tuple[float, ...] = (0.40, 0.25, 0.15, 0.12, 0.08)
    chances: tuple[float, ...] = (0.10, 0.30, 0.50, 0.75, 1.00)
    tilt: float = 0.3
    units: int = 4

    def agreement(self, truth: float) -> np.ndarray:
        """Each kind's agreement, so that the population's (share-weighted) is `truth`."""
        shares = np.asarray(self.shares, dtype=np.float64)
        shares = shares / shares.sum()
        chances = np.asarray(self.chances, dtype=np.float64)
        agreement = truth - self.tilt * (chances - float(shares @ chances))
        if agreement.min() < 0 or agreement.max() > 1:
            raise ValueError("the tilt takes some kind's agreement outside [0, 1]")
        return agreement


def simulated_rounds(
    rng: np.random.Generator,
    design: Design,
    *,
    truth: float,
    rounds: int,
    items: int,
    uniform: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(agree, units, chance) per item of simulated rounds, rows of `items` in hand-out
    order: each item a response of a kind drawn in proportion to share times chance (the
    population thinned by its chances, in random order), or to share alone (`uniform`:
    sampling with equal chances, every chance 1)."""
    shares = np.asarray(design.shares, dtype=np.float64)
    chances = np.asarray(design.chances, dtype=np.float64)
    drawn = shares if uniform else shares * chances
    kinds = rng.choice(len(shares), size=(rounds, items), p=drawn / drawn.sum())
    units = np.full((rounds, items), float(design.units))
    agree = rng.binomial(design.units, design.agreement(truth)[kinds]).astype(np.float64)
    chance = np.ones((rounds, items)) if uniform else chances[kinds]
    return agree, units, chance


def simulated_decisions(
    design: Design,
    *,
    truth: float,
    threshold: float,
    items: int,
    rounds: int,
    seed: int,
    alpha: float = DEFAULT_ALPHA,
    uniform: bool = False,
    weighted: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Decisions of many simulated rounds (1 pass, -1 fail, 0 continue) and the items each
    used, as leaderboard.stats.sequential.batch_decisions gives them; each round's items
    weighted by their chance ratios over the round's smallest chance (`weighted`), or not
    (the unweighted test on the same draws)."""
    rng = np.random.default_rng(seed)
    agree, units, chance = simulated_rounds(
        rng, design, truth=truth, rounds=rounds, items=items, uniform=uniform
    )
    ratio = chance.min(axis=-1, keepdims=True) / chance if weighted else None
    return batch_decisions(
        agree, units, float(design.units), threshold=threshold, alpha=alpha, ratio=ratio
    )
