"""Planning the evidence a gate needs (pure, no Django): the further units after which the
Wilson 95% lower bound reaches the threshold at the agreement seen so far; the fixed sample
the lower-bound rule needs at a design effect; and what the sequential rule is expected to
do on rounds drawn from a benchmark's real rubric sizes (by simulation)."""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from leaderboard.stats.intervals import wilson_interval

# Beyond this many units in all the answer is "not within reach" rather than a number: a
# benchmark round never has millions of units.
LIMIT = 10_000_000


def units_needed_for_lower_bound(
    agreeing: int, units: int, threshold: float, confidence: float = 0.95
) -> int | None:
    """The fewest further units m >= 0 such that, with the same share agreeing, the Wilson
    lower bound of (agreeing + round(share * m)) / (units + m) is at least `threshold`.
    0 when it already is; None when the share itself is not above the threshold (more of
    the same can never lift the bound to it) or there are no units."""
    if units <= 0 or not 0 <= agreeing <= units:
        return None
    share = agreeing / units

    def reaches(extra: int) -> bool:
        total = units + extra
        low = wilson_interval(min(total, round(share * total)), total, confidence).low
        return low is not None and low >= threshold

    if reaches(0):
        return 0
    if share <= threshold:
        return None
    # The bound grows with n at a fixed share (up to rounding).
    return _smallest(reaches, limit=LIMIT - units)


def _smallest(holds, *, limit: int) -> int | None:
    """The smallest n >= 1 for which `holds(n)`, for a condition that stays true once it
    is (up to rounding): doubling, then bisecting. None beyond `limit`."""
    high = 1
    while not holds(high):
        high *= 2
        if high > limit:
            return None
    low = high // 2
    while high - low > 1:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle
    return high


def items_for_units(units_needed: int, units_per_item: float) -> int:
    """Reviewed responses that bring `units_needed` units, at `units_per_item` each."""
    if units_per_item <= 0:
        return 0
    return math.ceil(units_needed / units_per_item)


def design_effect(agree_per_item: list[int], units_per_item: list[int]) -> float:
    """1 + (k - 1) * ICC for the agreement of units within items (criteria of one response
    are correlated), with k the mean units per item and the ICC from the one-way analysis
    of variance of the units' agreement by item. At least 1: a negative ICC estimate is
    taken as no clustering."""
    items = [(a, u) for a, u in zip(agree_per_item, units_per_item, strict=True) if u > 0]
    n_units = sum(u for _a, u in items)
    if len(items) < 2 or n_units <= len(items):
        return 1.0
    mean = sum(a for a, _u in items) / n_units
    between = sum(u * (a / u - mean) ** 2 for a, u in items) / (len(items) - 1)
    within = sum(a - a * a / u for a, u in items) / (n_units - len(items))
    k0 = (n_units - sum(u * u for _a, u in items) / n_units) / (len(items) - 1)
    denominator = between + (k0 - 1) * within
    icc = 0.0 if denominator <= 0 else max(0.0, (between - within) / denominator)
    k = n_units / len(items)
    return 1.0 + (k - 1.0) * icc


def items_for_fixed_lower_bound(
    *,
    expected: float,
    threshold: float,
    units_per_item: float,
    power: float = 0.8,
    confidence: float = 0.95,
    deff: float = 1.0,
) -> int | None:
    """Items a fixed sample needs for the gate's lower-bound rule to pass with probability
    `power` when the true agreement is `expected`: the fewest effective units n (units over
    the design effect) at which the Wilson lower bound of the (1 - power) quantile of the
    binomial count reaches `threshold`. None when `expected` is not above `threshold`."""
    if not 0.0 < threshold < expected < 1.0:
        return None
    from scipy.stats import binom

    def passes(n: int) -> bool:
        count = int(binom.ppf(1.0 - power, n, expected))
        low = wilson_interval(count, n, confidence).low
        return low is not None and low >= threshold

    units = _smallest(passes, limit=LIMIT)
    return None if units is None else math.ceil(units * max(1.0, deff) / units_per_item)


# The intraclass correlation of agreement among the criteria of one response assumed when
# no pilot round measures it (the middle of the range the error-rate simulations cover,
# 0 to 0.3; see docs/statistics.md).
DEFAULT_ICC = 0.1


def design_effect_for(mean_units: float, icc: float) -> float:
    """1 + (k - 1) * ICC at k criteria per response on average."""
    return 1.0 + max(0.0, mean_units - 1.0) * max(0.0, icc)


def icc_for(mean_units: float, deff: float) -> float:
    """The intraclass correlation a design effect implies at k criteria per response."""
    return 0.0 if mean_units <= 1.0 else max(0.0, (deff - 1.0) / (mean_units - 1.0))


@dataclass(frozen=True)
class SequentialForecast:
    """What simulated rounds of the sequential rule did: the items used (until the decision,
    or the whole round when it never came), and the share of each decision."""

    median: int
    p90: int
    at_power: int | None  # items by which `power` of the rounds had passed, if they did
    shares: dict[str, float]  # pass, fail, continue
    likely: str  # the most frequent decision
    horizon: int
    rounds: int


def sequential_forecast(
    *,
    expected: float,
    threshold: float,
    sizes: Sequence[int],
    icc: float,
    horizon: int,
    alpha: float,
    power: float,
    rounds: int,
    seed: int,
) -> SequentialForecast:
    """Rounds of `horizon` items drawn from the responses' rubric sizes `sizes`, agreeing at
    `expected` with criteria correlated at `icc`, each scaled by its largest item (as the
    report scales a round)."""
    # Imported here: the pages' wording reads this module's arithmetic without numpy.
    import numpy as np

    from leaderboard.stats.sequential import simulated_decisions

    decision, used = simulated_decisions(
        true_agreement=expected,
        threshold=threshold,
        items=horizon,
        sizes=sizes,
        icc=icc,
        rounds=rounds,
        seed=seed,
        alpha=alpha,
    )
    shares = {
        "pass": float(np.mean(decision == 1)),
        "fail": float(np.mean(decision == -1)),
        "continue": float(np.mean(decision == 0)),
    }
    passed_by = np.sort(np.where(decision == 1, used, horizon + 1))
    at_power = int(passed_by[math.ceil(power * rounds) - 1])
    return SequentialForecast(
        median=int(np.median(used)),
        p90=int(np.percentile(used, 90)),
        at_power=at_power if at_power <= horizon else None,
        shares=shares,
        likely=max(shares, key=lambda name: shares[name]),
        horizon=horizon,
        rounds=rounds,
    )


def expert_hours(items: int | None, raters: int, item_seconds: float | None) -> float | None:
    """Hours of expert time for `items` items, each rated by `raters` experts, at a median
    of `item_seconds` per item and expert; None when either is unknown."""
    if items is None or item_seconds is None:
        return None
    return items * raters * item_seconds / 3600.0
