"""An anytime-valid gate: is the judge's agreement with the experts at least the threshold?

Items (reviewed responses) arrive one after another in the round's seeded random hand-out
order. Item i brings `agree_i` units on which the judge and the experts' majority agree,
out of `units_i`. The pooled agreement is sum(agree) / sum(units), so "agreement >= m" is
"the mean of agree_i - m * units_i is >= 0". Scaled by the most units an item can have
(U), each item's excess x_i = (agree_i - m * units_i) / U lies in [-m, 1 - m].

Two tests by betting (Waudby-Smith and Ramdas, "Estimating means of bounded random
variables by betting", JRSS-B 2024; Shafer's testing by betting):

- "pass" bets that the mean excess is positive. Its wealth K_t = prod(1 + lambda_i x_i),
  with each bet lambda_i >= 0 chosen from the items before i only, is a nonnegative
  supermartingale while the agreement is at most m, so by Ville's inequality it ever
  reaches 1 / alpha with probability at most alpha, however often anyone looks. Reaching
  it decides "pass".
- "fail" bets the other way, on -x_i, and reaching 1 / alpha decides "fail".

Bets follow the approximate growth-rate adaptive rule (aGRAPA: the running mean over the
running second moment), truncated so that no item can take more than half the wealth. The
agreement values m that neither test has rejected so far form a confidence sequence
(coverage 1 - 2 alpha at every time at once); it only ever narrows.

Items are treated as draws from the population of responses the round samples, in random
order; nothing is extrapolated to items not yet rated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

DEFAULT_ALPHA = 0.05
# The largest share of its wealth a test may stake on one item.
_STAKE = 0.5
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
        }


def _log_wealth(x: np.ndarray, most_negative: np.ndarray) -> np.ndarray:
    """log K_t along the last axis for observations `x` (each >= -most_negative), betting
    aGRAPA's fraction of the running mean over the running second moment, never more than
    _STAKE / most_negative."""
    t = x.shape[-1]
    steps = np.arange(1, t + 1)
    # Running estimates before each item: a prior item at 0 (no edge) keeps early bets small.
    sums = np.cumsum(x, axis=-1)
    squares = np.cumsum(x * x, axis=-1)
    mean_before = np.concatenate([np.zeros((*x.shape[:-1], 1)), sums[..., :-1]], axis=-1) / steps
    second_before = (
        np.concatenate([np.full((*x.shape[:-1], 1), 0.25), squares[..., :-1]], axis=-1) / steps
    )
    cap = _STAKE / np.asarray(most_negative)[..., None]
    bet = np.clip(mean_before / np.maximum(second_before, 1e-12), 0.0, cap)
    return np.cumsum(np.log1p(bet * x), axis=-1)


def _first_crossing(log_wealth: np.ndarray, level: float) -> np.ndarray:
    """Per row, the index of the first item at which the wealth reaches the level (the
    number of items when it never does)."""
    crossed = log_wealth >= level
    return np.where(crossed.any(axis=-1), crossed.argmax(axis=-1), log_wealth.shape[-1])


def _excess(agree: np.ndarray, units: np.ndarray, m: np.ndarray, scale: float) -> np.ndarray:
    return (agree[None, :] - m[:, None] * units[None, :]) / scale


def sequential_gate(
    agree: list[int] | np.ndarray,
    units: list[int] | np.ndarray,
    *,
    threshold: float,
    alpha: float = DEFAULT_ALPHA,
    max_units: int | None = None,
) -> SequentialGate:
    """The sequential decision after the items given, in hand-out order: `agree[i]` of
    `units[i]` units of item i agree. `max_units` is the most units an item can have
    (by default the most seen)."""
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must lie strictly between 0 and 1, got {threshold!r}")
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha must lie strictly between 0 and 0.5, got {alpha!r}")
    agree = np.asarray(agree, dtype=np.float64).reshape(-1)
    units = np.asarray(units, dtype=np.float64).reshape(-1)
    if agree.size != units.size or np.any(agree < 0) or np.any(agree > units):
        raise ValueError("one (agree, units) pair per item, with 0 <= agree <= units")
    n = int(units.size)
    if n == 0 or units.max() == 0:
        return SequentialGate(CONTINUE, alpha, threshold, n, None, 1.0, 1.0, None, None, ())
    scale = float(max(max_units or 0, units.max()))
    level = math.log(1.0 / alpha)

    m = np.array([threshold])
    excess = _excess(agree, units, m, scale)
    log_pass = _log_wealth(excess, m)[0]
    log_fail = _log_wealth(-excess, 1.0 - m)[0]
    first_pass = int(_first_crossing(log_pass, level))
    first_fail = int(_first_crossing(log_fail, level))
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
    excess = _excess(agree, units, grid, scale)
    out_above = _first_crossing(_log_wealth(excess, grid), level)
    out_below = _first_crossing(_log_wealth(-excess, 1.0 - grid), level)
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
        e_pass=float(math.exp(min(log_pass[-1], 700.0))),
        e_fail=float(math.exp(min(log_fail[-1], 700.0))),
        cs_low=path[-1][0],
        cs_high=path[-1][1],
        cs_path=path,
    )


def simulated_decisions(
    *,
    true_agreement: float,
    threshold: float,
    items: int,
    units_per_item: int,
    rounds: int,
    seed: int,
    alpha: float = DEFAULT_ALPHA,
    within_item_sd: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Decisions of many simulated rounds at once (for validation and planning): per round,
    1 for pass, -1 for fail, 0 for continue, and the items used when decided (`items`
    when not). Items' agreement varies around `true_agreement` with `within_item_sd`
    (on the probability scale), so criteria of one item are correlated."""
    rng = np.random.default_rng(seed)
    p = np.full((rounds, items), true_agreement)
    if within_item_sd > 0:
        p = np.clip(p + rng.normal(0.0, within_item_sd, size=p.shape), 0.0, 1.0)
        # Recentre so the population's agreement is exactly `true_agreement`.
        p = np.clip(p - p.mean() + true_agreement, 0.0, 1.0)
    agree = rng.binomial(units_per_item, p).astype(np.float64)
    excess = (agree - threshold * units_per_item) / units_per_item
    level = math.log(1.0 / alpha)
    log_pass = _log_wealth(excess, np.full(rounds, threshold))
    log_fail = _log_wealth(-excess, np.full(rounds, 1.0 - threshold))
    first_pass = _first_crossing(log_pass, level)
    first_fail = _first_crossing(log_fail, level)
    decision = np.where(
        (first_pass < items) & (first_pass <= first_fail),
        1,
        np.where(first_fail < items, -1, 0),
    )
    used = np.minimum(np.minimum(first_pass, first_fail) + 1, items)
    return decision, used
