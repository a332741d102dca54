"""How much more evidence a gate would need: the number of further units, agreeing at the
agreement seen so far, after which the Wilson 95% lower bound (the interval the gate uses)
reaches the threshold. Pure (no Django)."""

import math

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
