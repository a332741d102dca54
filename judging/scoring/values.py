"""A number that may be undefined, with the reason why.

Scores are shown to researchers and exported; a missing hard set or a zero normal score must
read as "undefined, because ..." rather than as 0 or NaN, which look like real results. The
reason is a code of `judging.scoring.reasons`, put into words where it is shown.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Value:
    """Exactly one of `value` (a finite float) and `reason` (why there is no value) is set."""

    value: float | None
    reason: str | None = None

    def __post_init__(self) -> None:
        if (self.value is None) == (self.reason is None):
            raise ValueError("a Value needs exactly one of a value and a reason")
        if self.value is not None and not math.isfinite(self.value):
            raise ValueError(f"a Value must be finite, got {self.value!r}")
        if self.reason is not None and not self.reason.strip():
            raise ValueError("an undefined Value needs a non-empty reason")

    @classmethod
    def of(cls, value: float) -> "Value":
        return cls(value=float(value))

    @classmethod
    def undefined(cls, reason: str) -> "Value":
        return cls(value=None, reason=reason)

    @property
    def is_defined(self) -> bool:
        return self.value is not None


def mean(values: Iterable[float]) -> float | None:
    """Arithmetic mean with `math.fsum`, so the order of summation cannot shift a score;
    None (not 0) for no values, which the caller must turn into a reason."""
    items = list(values)
    if not items:
        return None
    return math.fsum(items) / len(items)
