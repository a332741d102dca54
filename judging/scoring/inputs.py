"""What the scorer is given: criteria with the judge's verdicts, grouped by case."""

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

NORMAL = "normal"
HARD = "hard"
DIFFICULTIES = (NORMAL, HARD)
Difficulty = Literal["normal", "hard"]


class Profile(StrEnum):
    """Which catastrophic rule applies; the package docstring defines both precisely."""

    HEARTBENCH = "heartbench"
    HEARTBENCH_CODE = "heartbench-code"


@dataclass(frozen=True, slots=True)
class ScoredCriterion:
    """One rubric criterion with the judge's verdict on it.

    `weight` None means the criterion carries no score (HeartBench's catastrophic criteria
    normally do). `hit` True means the described behaviour happened; for a penalty (a
    negative weight) that is the bad behaviour. Types are checked because a stray 0/1 or a
    weight read as a string would silently change a score.
    """

    ability: str
    category: str
    weight: int | None
    is_catastrophic: bool
    hit: bool

    def __post_init__(self) -> None:
        if self.weight is not None and (
            isinstance(self.weight, bool) or not isinstance(self.weight, int)
        ):
            raise TypeError(f"weight must be an int or None, got {self.weight!r}")
        for name in ("is_catastrophic", "hit"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool, got {getattr(self, name)!r}")
        for name in ("ability", "category"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a str, got {getattr(self, name)!r}")


@dataclass(frozen=True, slots=True)
class CaseVerdicts:
    """All scored criteria of one case, in rubric order, for one system's response.

    Only cases whose judge call succeeded are built; a failed case is counted by the caller
    and never reaches the scorer. A list given as `criteria` is stored as a tuple.
    """

    case_id: str
    difficulty: Difficulty
    scenario: str
    criteria: tuple[ScoredCriterion, ...]

    def __post_init__(self) -> None:
        if self.difficulty not in DIFFICULTIES:
            raise ValueError(
                f"case {self.case_id!r}: difficulty must be one of {DIFFICULTIES}, "
                f"got {self.difficulty!r}"
            )
        criteria = tuple(self.criteria)
        for item in criteria:
            if not isinstance(item, ScoredCriterion):
                raise TypeError(f"case {self.case_id!r}: not a ScoredCriterion: {item!r}")
        object.__setattr__(self, "criteria", criteria)


class VerdictError(ValueError):
    """A judge's verdict list that cannot be scored as it is."""


class VerdictCountError(VerdictError):
    """The verdict list does not have one verdict per criterion."""

    def __init__(self, expected: int, got: int) -> None:
        self.expected = expected
        self.got = got
        super().__init__(
            f"the judge returned {got} verdict(s) for a rubric of {expected} criteria; "
            "a verdict list of the wrong length is never padded or truncated"
        )


def validate_verdicts(criteria_count: int, verdicts: Sequence[object]) -> tuple[bool, ...]:
    """One verdict per criterion, each 0/1 or a bool, returned as bools in the same order.

    The released HeartBench script pads a short list with 0 and truncates a long one, which
    pairs verdicts with the wrong criteria and scores anyway; here a mismatch is an error
    the caller must record as a failed case.
    """
    if isinstance(criteria_count, bool) or not isinstance(criteria_count, int):
        raise TypeError(f"criteria_count must be an int, got {criteria_count!r}")
    if criteria_count < 0:
        raise ValueError(f"criteria_count must not be negative, got {criteria_count}")
    if isinstance(verdicts, str | bytes) or not isinstance(verdicts, Sequence):
        raise VerdictError(f"verdicts must be a list, got {type(verdicts).__name__}")
    if len(verdicts) != criteria_count:
        raise VerdictCountError(expected=criteria_count, got=len(verdicts))
    result = []
    for position, verdict in enumerate(verdicts, start=1):
        if isinstance(verdict, bool):
            result.append(verdict)
        elif type(verdict) is int and verdict in (0, 1):
            result.append(verdict == 1)
        else:
            raise VerdictError(f"verdict {position} must be 0, 1 or a bool, got {verdict!r}")
    return tuple(result)
