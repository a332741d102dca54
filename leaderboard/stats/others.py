"""Each rater's agreement with the majority of the other raters (leave-one-out consensus)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.stats._labels import encode_matrix, unit_counts
from leaderboard.stats.raters import RatingsMatrix
from leaderboard.stats.reasons import RATER_NO_MAJORITY, RATER_NO_UNITS
from leaderboard.stats.result import Stat


@dataclass(frozen=True, slots=True)
class RaterAgreement:
    """How often one rater matched the majority of the others on the units both could judge.

    ``rated`` = ``compared`` + ``skipped_tie`` + ``skipped_no_others``.
    """

    rater: Hashable
    agreement: Stat
    rated: int
    compared: int
    agreed: int
    skipped_tie: int
    skipped_no_others: int


def agreement_with_others(
    ratings: RatingsMatrix, raters: Sequence[Hashable] | None = None
) -> list[RaterAgreement]:
    """For each rater (row), the share of their rated units on which they gave the label of the
    majority of the OTHER raters of that unit, with the rules of ``consensus.majority``.

    Units where the others tie, or where no one else rated the unit, are skipped and counted.
    ``raters`` names the rows (default: their indices 0, 1, ...).
    """
    codes, cats = encode_matrix(ratings, None)
    names = list(range(codes.shape[0])) if raters is None else list(raters)
    if len(names) != codes.shape[0]:
        raise ValueError(f"{len(names)} rater names for {codes.shape[0]} rows of ratings")
    counts = unit_counts(codes, len(cats))
    results = []
    for r, name in enumerate(names):
        units = np.flatnonzero(codes[r] >= 0)
        own = codes[r, units]
        others = counts[units].copy()
        others[np.arange(units.size), own] -= 1
        if units.size:
            top = others.max(axis=1)
            winner = others.argmax(axis=1)
        else:
            top = winner = np.zeros(0, dtype=np.int64)
        no_others = top == 0
        tie = ~no_others & (np.count_nonzero(others == top[:, None], axis=1) > 1)
        decided = ~(no_others | tie)
        compared = int(np.count_nonzero(decided))
        agreed = int(np.count_nonzero(decided & (winner == own)))
        if compared:
            agreement = Stat.of(agreed / compared)
        elif units.size:
            agreement = Stat.undefined(RATER_NO_MAJORITY)
        else:
            agreement = Stat.undefined(RATER_NO_UNITS)
        results.append(
            RaterAgreement(
                rater=name,
                agreement=agreement,
                rated=int(units.size),
                compared=compared,
                agreed=agreed,
                skipped_tie=int(np.count_nonzero(tie)),
                skipped_no_others=int(np.count_nonzero(no_others)),
            )
        )
    return results
