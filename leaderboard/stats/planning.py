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
    # The bound grows with n at a fixed share (up to rounding): double, then bisect.
    high = 1
    while not reaches(high):
        high *= 2
        if units + high > LIMIT:
            return None
    low = high // 2
    while high - low > 1:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    return high


def items_for_units(units_needed: int, units_per_item: float) -> int:
    """Reviewed responses that bring `units_needed` units, at `units_per_item` each."""
    if units_per_item <= 0:
        return 0
    return math.ceil(units_needed / units_per_item)
