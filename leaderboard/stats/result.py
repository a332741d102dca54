"""Result types: a statistic or interval that is either a finite number or undefined with a reason.

No function of this package returns NaN: where a measure has no value (no units, no variation,
no overlapping raters), the result carries ``value=None`` and a ``reason``: a code of
`leaderboard.stats.reasons`, which the pages put into the reader's words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


def _finite(number: float, what: str) -> float:
    number = float(number)
    if not math.isfinite(number):
        raise ValueError(f"{what} must be a finite number, got {number!r}")
    return number


@dataclass(frozen=True, slots=True)
class Stat:
    """One statistic: ``value`` is a finite float, or None and then ``reason`` says why."""

    value: float | None
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.value is None:
            if not self.reason:
                raise ValueError("an undefined statistic needs a reason")
        else:
            if self.reason is not None:
                raise ValueError("a defined statistic has no reason")
            object.__setattr__(self, "value", _finite(self.value, "a statistic"))

    @classmethod
    def of(cls, value: float) -> Stat:
        return cls(value=value)

    @classmethod
    def undefined(cls, reason: str) -> Stat:
        return cls(value=None, reason=reason)

    @property
    def is_defined(self) -> bool:
        return self.value is not None


@dataclass(frozen=True, slots=True)
class Interval:
    """A confidence interval: both bounds finite with ``low <= high``, or both None and a reason."""

    low: float | None
    high: float | None
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.low is None or self.high is None:
            if self.low is not None or self.high is not None:
                raise ValueError("an interval has both bounds or neither")
            if not self.reason:
                raise ValueError("an undefined interval needs a reason")
            return
        if self.reason is not None:
            raise ValueError("a defined interval has no reason")
        low = _finite(self.low, "an interval bound")
        high = _finite(self.high, "an interval bound")
        if low > high:
            raise ValueError(f"interval bounds out of order: {low} > {high}")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    @classmethod
    def of(cls, low: float, high: float) -> Interval:
        return cls(low=low, high=high)

    @classmethod
    def undefined(cls, reason: str) -> Interval:
        return cls(low=None, high=None, reason=reason)

    @property
    def is_defined(self) -> bool:
        return self.low is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class BootstrapInterval(Interval):
    """A bootstrap percentile interval with what is needed to reproduce it."""

    n_resamples: int
    seed: int
    n_clusters: int
    n_units: int
