"""The binary confusion matrix of judge vs human consensus, with the human as the reference."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.stats._labels import is_missing
from leaderboard.stats.reasons import NO_NEGATIVE_CONSENSUS, NO_POSITIVE_CONSENSUS, NO_UNITS
from leaderboard.stats.result import Stat


def _ratio(numerator: int, denominator: int, reason: str) -> Stat:
    if denominator == 0:
        return Stat.undefined(reason)
    return Stat.of(numerator / denominator)


@dataclass(frozen=True, slots=True)
class BinaryConfusion:
    """Counts of units by (judge, human) verdict, 'hit' meaning the positive label."""

    both_hit: int
    judge_only: int
    human_only: int
    both_miss: int

    @property
    def n(self) -> int:
        return self.both_hit + self.judge_only + self.human_only + self.both_miss

    @property
    def agreements(self) -> int:
        return self.both_hit + self.both_miss

    @property
    def sensitivity(self) -> Stat:
        """Of the units the humans call positive, the share the judge also calls positive."""
        return _ratio(
            self.both_hit,
            self.both_hit + self.human_only,
            NO_POSITIVE_CONSENSUS,
        )

    @property
    def specificity(self) -> Stat:
        """Of the units the humans call negative, the share the judge also calls negative."""
        return _ratio(
            self.both_miss,
            self.both_miss + self.judge_only,
            NO_NEGATIVE_CONSENSUS,
        )

    @property
    def prevalence(self) -> Stat:
        """The share of units the human consensus calls positive."""
        return _ratio(self.both_hit + self.human_only, self.n, NO_UNITS)

    @property
    def judge_positive_rate(self) -> Stat:
        """The share of units the judge calls positive."""
        return _ratio(self.both_hit + self.judge_only, self.n, NO_UNITS)


def binary_confusion(
    judge: Sequence[Hashable | None],
    human: Sequence[Hashable | None],
    positive: Hashable = True,
) -> BinaryConfusion:
    """Count units by verdict pair; a value equal to ``positive`` is a hit, any other a miss.

    Positions where either value is missing (None or NaN) are left out.
    """
    if (
        isinstance(judge, np.ndarray)
        and isinstance(human, np.ndarray)
        and judge.dtype == bool
        and human.dtype == bool
        and judge.ndim == human.ndim == 1
        and isinstance(positive, bool)
    ):
        return _bool_confusion(judge, human, positive)
    judge, human = list(judge), list(human)
    if len(judge) != len(human):
        raise ValueError(f"sequences differ in length: {len(judge)} and {len(human)}")
    counts = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for j, h in zip(judge, human, strict=True):
        if is_missing(j) or is_missing(h):
            continue
        counts[(bool(j == positive), bool(h == positive))] += 1
    return BinaryConfusion(
        both_hit=counts[(True, True)],
        judge_only=counts[(True, False)],
        human_only=counts[(False, True)],
        both_miss=counts[(False, False)],
    )


def _bool_confusion(judge: np.ndarray, human: np.ndarray, positive: bool) -> BinaryConfusion:
    """The vectorised path for two boolean arrays, where nothing can be missing: the report
    counts about 47,000 units at full scale."""
    if judge.size != human.size:
        raise ValueError(f"sequences differ in length: {judge.size} and {human.size}")
    judge_hit, human_hit = judge == positive, human == positive
    both_hit = int(np.count_nonzero(judge_hit & human_hit))
    judge_only = int(np.count_nonzero(judge_hit)) - both_hit
    human_only = int(np.count_nonzero(human_hit)) - both_hit
    return BinaryConfusion(
        both_hit=both_hit,
        judge_only=judge_only,
        human_only=human_only,
        both_miss=int(judge.size) - both_hit - judge_only - human_only,
    )
