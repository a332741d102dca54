"""Confidence intervals for a proportion of units."""

from __future__ import annotations

import math
from statistics import NormalDist

from leaderboard.stats.reasons import NO_UNITS_TO_BOUND
from leaderboard.stats.result import Interval


def check_counts(successes: int, n: int) -> None:
    """Counts must be whole numbers with 0 <= successes <= n; anything else is a caller's bug."""
    for name, count in (("successes", successes), ("n", n)):
        if isinstance(count, bool) or int(count) != count:
            raise ValueError(f"{name} must be a whole number, got {count!r}")
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")


def check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")


def wilson_bounds(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's score bounds for a share p of n units (n may be an effective, fractional
    count) at the normal quantile z."""
    z2_n = z * z / n
    centre = (p + z2_n / 2.0) / (1.0 + z2_n)
    half = z * math.sqrt(p * (1.0 - p) / n + z2_n / (4.0 * n)) / (1.0 + z2_n)
    return max(0.0, centre - half), min(1.0, centre + half)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval for the proportion successes / n (two-sided)."""
    check_counts(successes, n)
    check_confidence(confidence)
    if n == 0:
        return Interval.undefined(NO_UNITS_TO_BOUND)
    # The standard library's normal quantile: the same z as scipy's, without importing
    # scipy.stats (a second of start-up for every command and worker).
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    return Interval.of(*wilson_bounds(successes / n, n, z))
