"""An anytime-valid gate: is the judge's agreement with the experts at least the threshold?

Items (reviewed responses) arrive one after another in the round's seeded random hand-out
order. Item i brings `agree_i` units on which the judge and the experts' majority agree,
out of `units_i`. The pooled agreement is sum(agree) / sum(units), so "agreement >= m" is
"the mean of agree_i - m * units_i is >= 0". Scaled by the most units an item of the round
can have (U, the round's largest rubric, fixed when it opens), each item's excess
x_i = (agree_i - m * units_i) / U lies in [-m, 1 - m].

Two tests by betting (Waudby-Smith and Ramdas, "Estimating means of bounded random
variables by betting", JRSS-B 2024; Shafer's testing by betting):

- "pass" bets that the mean excess is positive. Its wealth K_t = prod(1 + lambda_i x_i),
  with each bet lambda_i >= 0 chosen from the items before i only, is a nonnegative
  supermartingale while the agreement is at most m, so by Ville's inequality it ever
  reaches 1 / alpha with probability at most alpha, however often anyone looks. Reaching
  it decides "pass".
- "fail" bets the other way, on -x_i, and reaching 1 / alpha decides "fail".

The bet (aGRAPA, the approximate growth-rate adaptive rule) is the running mean of the
excess over its running second moment. Both running figures start from one imagined item
with no edge (mean 0) and the second moment of an item of U units agreeing independently at
the threshold, m (1 - m) / U; after a few real items the data outweigh it. The bet is then
truncated to [0, (1 - eps) / m] (eps = 0.05): the validity bound is 1 / m, the largest
stake at which the worst item (all U units disagree) cannot take all the wealth, and this
truncation keeps at least eps of it. The agreement values m that neither test has rejected
so far form a confidence sequence (coverage 1 - 2 alpha at every time at once); it only
ever narrows.

A judge version's rounds form one history: the tests run on, item after item, from one
round's settled prefix into the next (each round scaled by its own U), so wealth is never
reset and a failure, once reached, stays (`sequential_history`).

Items are treated as draws from the population of responses the round samples, in random
order; nothing is extrapolated to items not yet rated. A round that drew its responses with
unequal chances multiplies each item's excess by its chance ratio (in (0, 1]; 1 for every
item of a round drawn with equal chances): leaderboard.stats.sequential_weighted says why
the bets and their bound stay as they are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_ALPHA = 0.05
# The share of its wealth a test keeps whatever one item shows: bets stop at (1 - eps) / m.
EPSILON = 0.05
_GRID = np.linspace(0.0, 1.0, 201)

PASS, FAIL, CONTINUE = "pass", "fail", "continue"


@dataclass(frozen=True)
class SequentialGate:
    decision: str  # PASS, FAIL or CONTINUE
    alpha: float
    threshold: float
    items_used: int
    decided_at: int | None  # items used when the decision was reached, None while continuing
    e_pass: float  # the pass test's wealth after the last item used
    e_fail: float
    cs_low: float | None  # the confidence sequence for agreement after the last item used
    cs_high: float | None
    cs_path: tuple[tuple[float, float], ...]  # after each item: (low, high)
    bets: tuple[float, ...] = ()  # the pass test's bet on each item (on the scaled excess)
    round_items: tuple[int, ...] = ()  # items used of each round of the history
    weighted: bool = False  # some item's excess was weighted by its chance ratio

    def as_dict(self) -> dict:
        return {
            "rule": "betting e-process (aGRAPA), Waudby-Smith & Ramdas 2024",
            "alpha": self.alpha,
            "threshold": self.threshold,
            "decision": self.decision,
            "items_used": self.items_used,
            "decided_at": self.decided_at,
            "e_pass": self.e_pass,
            "e_fail": self.e_fail,
            "cs": None if self.cs_low is None else [self.cs_low, self.cs_high],
            # Only when set, so an unweighted test reads as it always has.
            **({"weighted": True} if self.weighted else {}),
        }


def _bets(x: np.ndarray, most_negative: np.ndarray, prior_second: np.ndarray) -> np.ndarray:
    """aGRAPA's bet before each item (along the last axis), from the items before it and
    one imagined item (mean 0, second moment `prior_second`), truncated to
    [0, (1 - EPSILON) / most_negative]."""
    steps = np.arange(1, x.shape[-1] + 1)
    zeros = np.zeros((*x.shape[:-1], 1))
    sums = np.concatenate([zeros, np.cumsum(x, axis=-1)[..., :-1]], axis=-1)
    squares = np.concatenate([zeros, np.cumsum(x * x, axis=-1)[..., :-1]], axis=-1)
    second = (np.asarray(prior_second)[..., None] + squares) / steps
    cap = (1.0 - EPSILON) / np.asarray(most_negative)[..., None]
    return np.clip((sums / steps) / np.maximum(second, 1e-12), 0.0, cap)


def _log_wealth(x: np.ndarray, most_negative, prior_second) -> tuple[np.ndarray, np.ndarray]:
    """(log K_t after each item, the bets) for observations `x` >= -most_negative."""
    bets = _bets(x, np.asarray(most_negative, dtype=np.float64), prior_second)
    return np.cumsum(np.log1p(bets * x), axis=-1), bets


def _first_crossing(log_wealth: np.ndarray, level: float) -> np.ndarray:
    """Per row, the index of the first item at which the wealth reaches the level (the
    number of items when it never does)."""
    crossed = log_wealth >= level
    return np.where(crossed.any(axis=-1), crossed.argmax(axis=-1), log_wealth.shape[-1])


def _excess(agree, units, scale, ratio, m: np.ndarray):
    # A ratio of exactly 1.0 leaves the excess as it is, bit for bit.
    return (agree[None, :] - m[:, None] * units[None, :]) / scale[None, :] * ratio[None, :]


def _prior(m: np.ndarray, first_scale: float) -> np.ndarray:
    return m * (1.0 - m) / first_scale


def _checked(threshold: float, alpha: float) -> None:
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must lie strictly between 0 and 1, got {threshold!r}")
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha must lie strictly between 0 and 0.5, got {alpha!r}")


def _ratios(number: int, given, items: int) -> list[float]:
    if given is None:
        return [1.0] * items
    ratios = [float(r) for r in list(given)[:items]]
    if len(ratios) < items or any(not 0.0 < r <= 1.0 for r in ratios):
        raise ValueError(f"round {number}: one chance ratio in (0, 1] per item")
    return ratios


def _stacked(rounds, max_units, ratios):
    """(agree, units, scale, chance ratio) per item over the rounds in order, and each
    round's items."""
    if max_units is not None and len(max_units) != len(rounds):
        raise ValueError("one most-units value per round (or none)")
    if ratios is not None and len(ratios) != len(rounds):
        raise ValueError("one list of chance ratios per round (or none)")
    agree, units, scale, ratio, sizes = [], [], [], [], []
    for number, tallies in enumerate(rounds, start=1):
        pairs = [(float(a), float(u)) for a, u in tallies]
        if any(not 0 <= a <= u for a, u in pairs):
            raise ValueError(
                f"round {number}: one (agree, units) pair per item, 0 <= agree <= units"
            )
        largest = max((u for _a, u in pairs), default=0.0)
        given = None if max_units is None else max_units[number - 1]
        if given is not None and given < largest:
            raise ValueError(
                f"round {number}: the most units must be at least the units of its largest "
                f"item ({largest:g}), got {given}"
            )
        round_scale = max(float(given or 0), largest) or 1.0
        agree += [a for a, _u in pairs]
        units += [u for _a, u in pairs]
        scale += [round_scale] * len(pairs)
        ratio += _ratios(number, None if ratios is None else ratios[number - 1], len(pairs))
        sizes.append(len(pairs))
    as_array = lambda values: np.asarray(values, dtype=np.float64)  # noqa: E731
    return as_array(agree), as_array(units), as_array(scale), as_array(ratio), tuple(sizes)


def sequential_history(
    rounds: Sequence[Sequence[tuple[int, int]]],
    *,
    threshold: float,
    alpha: float = DEFAULT_ALPHA,
    max_units: Sequence[int | None] | None = None,
    ratios: Sequence[Sequence[float] | None] | None = None,
) -> SequentialGate:
    """The sequential decision on a judge version's rounds, oldest first: each round is its
    settled prefix, per item in hand-out order (agree, units). The betting runs on from
    round to round. `max_units[r]` is the most units an item of round r can have (its
    largest rubric; by default the most seen in that round's prefix). `ratios[r]` (None:
    1 for every item) is each item's chance ratio in round r drawn with unequal chances
    (leaderboard.stats.sequential_weighted.chance_ratios), at least one per item of its
    prefix. The decision is the first test to reach 1 / alpha, at `decided_at` items into
    the whole history."""
    _checked(threshold, alpha)
    agree, units, scale, ratio, round_items = _stacked(rounds, max_units, ratios)
    weighted = ratios is not None and any(r is not None for r in ratios)
    n = int(units.size)
    if n == 0 or units.max() == 0:
        return SequentialGate(
            CONTINUE, alpha, threshold, n, None, 1.0, 1.0, None, None, (), (), round_items,
            weighted,
        )  # fmt: skip
    level = math.log(1.0 / alpha)
    first = float(scale[0])

    m = np.array([threshold])
    excess = _excess(agree, units, scale, ratio, m)
    log_pass, bets = _log_wealth(excess, m, _prior(m, first))
    log_fail, _fail_bets = _log_wealth(-excess, 1.0 - m, _prior(m, first))
    first_pass = int(_first_crossing(log_pass[0], level))
    first_fail = int(_first_crossing(log_fail[0], level))
    decision, decided_at = CONTINUE, None
    if first_pass < n and first_pass <= first_fail:
        decision, decided_at = PASS, first_pass + 1
    elif first_fail < n:
        decision, decided_at = FAIL, first_fail + 1

    # The confidence sequence: every m on the grid, each with its own bets. An m is out
    # from the first item at which either test against it reaches 1 / alpha. The grid is
    # coarse (0.005): an endpoint is the outermost grid value ruled out, so the sequence
    # is never narrower than its exact form, and a report of thousands of items stays fast.
    grid = _GRID[1:-1]
    excess = _excess(agree, units, scale, ratio, grid)
    out_above = _first_crossing(_log_wealth(excess, grid, _prior(grid, first))[0], level)
    out_below = _first_crossing(_log_wealth(-excess, 1.0 - grid, _prior(grid, first))[0], level)
    # After each item: the largest m the pass tests have ruled out so far (agreement lies
    # above it), and the smallest m the fail tests have.
    lows = np.zeros(n)
    np.maximum.at(lows, out_above[out_above < n], grid[out_above < n])
    lows = np.maximum.accumulate(lows)
    highs = np.ones(n)
    np.minimum.at(highs, out_below[out_below < n], grid[out_below < n])
    highs = np.maximum(np.minimum.accumulate(highs), lows)
    path = tuple(zip(lows.tolist(), highs.tolist(), strict=True))
    return SequentialGate(
        decision=decision,
        alpha=alpha,
        threshold=threshold,
        items_used=n,
        decided_at=decided_at,
        e_pass=float(math.exp(min(log_pass[0, -1], 700.0))),
        e_fail=float(math.exp(min(log_fail[0, -1], 700.0))),
        cs_low=path[-1][0],
        cs_high=path[-1][1],
        cs_path=path,
        bets=tuple(bets[0].tolist()),
        round_items=round_items,
        weighted=weighted,
    )


def sequential_gate(
    agree: list[int] | np.ndarray,
    units: list[int] | np.ndarray,
    *,
    threshold: float,
    alpha: float = DEFAULT_ALPHA,
    max_units: int | None = None,
    ratios: Sequence[float] | None = None,
) -> SequentialGate:
    """The sequential decision after the items of one round given, in hand-out order:
    `agree[i]` of `units[i]` units of item i agree. `max_units` is the most units an item
    of the round can have (by default the most seen); `ratios`, each item's chance ratio
    when the round drew its items with unequal chances (see `sequential_history`)."""
    _checked(threshold, alpha)
    agree = np.asarray(agree, dtype=np.float64).reshape(-1)
    units = np.asarray(units, dtype=np.float64).reshape(-1)
    if agree.size != units.size:
        raise ValueError("one (agree, units) pair per item, with 0 <= agree <= units")
    most = None if max_units is None else max(int(max_units), int(units.max(initial=0)))
    return sequential_history(
        [list(zip(agree.tolist(), units.tolist(), strict=True))],
        threshold=threshold,
        alpha=alpha,
        max_units=[most],
        ratios=None if ratios is None else [ratios],
    )


def batch_crossings(
    agree: np.ndarray,
    units: np.ndarray,
    scale: np.ndarray,
    *,
    threshold: float,
    alpha: float = DEFAULT_ALPHA,
    ratio: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per row of (agree, units, scale) (a history of items; each item's scale is its
    round's most units; `ratio`, its chance ratio when drawn with unequal chances): the
    index of the item at which the pass test first reaches 1 / alpha, and the fail test's,
    each the number of items when it never does."""
    _checked(threshold, alpha)
    scale = np.broadcast_to(scale, agree.shape)
    excess = (agree - threshold * units) / scale
    if ratio is not None:
        excess = excess * ratio
    m = np.full(agree.shape[:-1], threshold)
    prior = _prior(m, scale[..., 0])
    level = math.log(1.0 / alpha)
    first_pass = _first_crossing(_log_wealth(excess, m, prior)[0], level)
    first_fail = _first_crossing(_log_wealth(-excess, 1.0 - m, prior)[0], level)
    return first_pass, first_fail


def batch_decisions(
    agree: np.ndarray,
    units: np.ndarray,
    scale: np.ndarray,
    *,
    threshold: float,
    alpha: float = DEFAULT_ALPHA,
    ratio: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The decisions of many histories at once, one per row: 1 for pass, -1 for fail, 0
    for continue, and the items used when decided (every item when not)."""
    items = agree.shape[-1]
    first_pass, first_fail = batch_crossings(
        agree, units, scale, threshold=threshold, alpha=alpha, ratio=ratio
    )
    decision = np.where(
        (first_pass < items) & (first_pass <= first_fail),
        1,
        np.where(first_fail < items, -1, 0),
    )
    used = np.minimum(np.minimum(first_pass, first_fail) + 1, items)
    return decision, used


def simulated_units(
    rng: np.random.Generator,
    *,
    rounds: int,
    items: int,
    sizes: Sequence[int],
) -> np.ndarray:
    """Criteria per item of simulated rounds, drawn from the population's rubric sizes
    `sizes` (one entry per response): without replacement while the round fits in it."""
    population = np.asarray(sizes, dtype=np.float64)
    if items <= population.size:
        return np.stack(
            [
                population[rng.choice(population.size, size=items, replace=False)]
                for _ in range(rounds)
            ]
        )
    return rng.choice(population, size=(rounds, items))


def simulated_agreement(
    rng: np.random.Generator, units: np.ndarray, *, mean: float, icc: float
) -> np.ndarray:
    """Agreeing units per item: beta-binomial, each item's chance of agreement drawn around
    `mean` so that two units of one item agree alike with correlation `icc`."""
    if icc <= 0:
        return rng.binomial(units.astype(np.int64), mean).astype(np.float64)
    spread = (1.0 - icc) / icc
    chance = rng.beta(mean * spread, (1.0 - mean) * spread, size=units.shape)
    return rng.binomial(units.astype(np.int64), chance).astype(np.float64)


def simulated_decisions(
    *,
    true_agreement: float,
    threshold: float,
    items: int,
    rounds: int,
    seed: int,
    alpha: float = DEFAULT_ALPHA,
    units_per_item: int | None = None,
    sizes: Sequence[int] | None = None,
    icc: float = 0.0,
    within_item_sd: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Decisions of many simulated rounds at once (for validation and planning): per round,
    1 for pass, -1 for fail, 0 for continue, and the items used when decided (`items`
    when not). Items have `units_per_item` criteria each, or sizes drawn from `sizes`; each
    round is scaled by its largest item, as the report scales a round. Criteria of one
    item are correlated with `icc` (beta-binomial), or, with `within_item_sd`, items'
    agreement varies around `true_agreement` with that sd on the probability scale."""
    rng = np.random.default_rng(seed)
    if sizes is not None:
        units = simulated_units(rng, rounds=rounds, items=items, sizes=sizes)
    elif units_per_item is not None:
        units = np.full((rounds, items), float(units_per_item))
    else:
        raise ValueError("give the units per item or the population's rubric sizes")
    if within_item_sd > 0:
        p = np.clip(true_agreement + rng.normal(0.0, within_item_sd, size=units.shape), 0, 1)
        # Recentre so the population's agreement is exactly `true_agreement`.
        p = np.clip(p - p.mean() + true_agreement, 0.0, 1.0)
        agree = rng.binomial(units.astype(np.int64), p).astype(np.float64)
    else:
        agree = simulated_agreement(rng, units, mean=true_agreement, icc=icc)
    scale = units.max(axis=-1, keepdims=True)
    return batch_decisions(agree, units, scale, threshold=threshold, alpha=alpha)
