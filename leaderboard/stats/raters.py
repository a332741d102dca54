"""Agreement among human raters on nominal labels.

Ratings come as a raters x units matrix (one row per rater, one column per unit) with None
(or NaN) where a rater did not rate a unit; Fleiss' kappa also takes a units x categories
count table or one list of ratings per unit.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np

from leaderboard.stats._labels import encode_matrix, is_missing, resolve_categories, unit_counts
from leaderboard.stats.reasons import (
    NO_RATER_PAIRS,
    NO_UNITS,
    ONE_CATEGORY_POSSIBLE,
    ONE_CATEGORY_USED,
    SINGLE_RATING,
    UNEVEN_RATINGS,
    reason,
)
from leaderboard.stats.result import Stat

RatingsMatrix = Sequence[Sequence[Hashable | None]] | np.ndarray
CountTable = Sequence[Sequence[float]] | np.ndarray


def _fleiss(counts: np.ndarray) -> Stat:
    if counts.shape[0] == 0 or counts.sum() == 0:
        return Stat.undefined(NO_UNITS)
    per_unit = counts.sum(axis=1)
    if per_unit.min() != per_unit.max():
        return Stat.undefined(
            reason(UNEVEN_RATINGS, low=int(per_unit.min()), high=int(per_unit.max()))
        )
    m = float(per_unit[0])
    if m < 2:
        return Stat.undefined(SINGLE_RATING)
    shares = counts.sum(axis=0) / counts.sum()
    expected = float(np.sum(shares**2))
    if expected >= 1.0 - 1e-12:
        return Stat.undefined(ONE_CATEGORY_USED)
    observed = float(np.mean((np.sum(counts**2, axis=1) - m) / (m * (m - 1.0))))
    return Stat.of((observed - expected) / (1.0 - expected))


def _count_table(counts: CountTable) -> np.ndarray | None:
    """A units x categories table of rating counts as floats; None when it is empty."""
    table = np.asarray(counts, dtype=np.float64)
    if table.size == 0:
        return None
    if table.ndim != 2:
        raise ValueError(f"a count table has two dimensions (units x categories): {table.shape}")
    if not np.all(np.isfinite(table)) or np.any(table < 0):
        raise ValueError("a count table holds non-negative counts")
    return table


def fleiss_kappa(counts: CountTable) -> Stat:
    """Fleiss' kappa of a units x categories table of rating counts (complete data only)."""
    table = _count_table(counts)
    if table is None:
        return Stat.undefined(NO_UNITS)
    return _fleiss(table)


def fleiss_kappa_from_ratings(
    ratings: Iterable[Iterable[Hashable | None]],
    categories: Iterable[Hashable] | None = None,
) -> Stat:
    """Fleiss' kappa from one list of ratings per unit (None or NaN entries are ignored)."""
    units = [[label for label in unit if not is_missing(label)] for unit in ratings]
    cats = resolve_categories((label for unit in units for label in unit), categories)
    index = {label: i for i, label in enumerate(cats)}
    table = np.zeros((len(units), len(cats)), dtype=np.float64)
    for u, unit in enumerate(units):
        for label in unit:
            table[u, index[label]] += 1
    if table.size == 0:
        return Stat.undefined(NO_UNITS)
    return _fleiss(table)


def _unit_counts(
    ratings: RatingsMatrix, categories: Iterable[Hashable] | None = None
) -> np.ndarray:
    """The units x categories table of a ratings matrix, as floats."""
    codes, cats = encode_matrix(ratings, categories)
    return unit_counts(codes, len(cats)).astype(np.float64)


def _krippendorff(counts: np.ndarray) -> Stat:
    paired = counts[counts.sum(axis=1) >= 2]
    if paired.shape[0] == 0:
        return Stat.undefined(NO_RATER_PAIRS)
    m = paired.sum(axis=1)
    n_c = paired.sum(axis=0)
    n = float(n_c.sum())
    # Coincidences within units: sum over c of o_cc, and the total n.
    matching = float(np.sum(np.sum(paired * (paired - 1.0), axis=1) / (m - 1.0)))
    # Pairs of pairable values in different categories; counts are whole, so 0 means one.
    expected_pairs = n * n - float(np.sum(n_c**2))
    if expected_pairs < 0.5:
        return Stat.undefined(ONE_CATEGORY_USED)
    return Stat.of(1.0 - (n - 1.0) * (n - matching) / expected_pairs)


def krippendorff_alpha(ratings: RatingsMatrix) -> Stat:
    """Krippendorff's alpha for nominal data, missing ratings allowed.

    Only units with two or more ratings (pairable values) count. With n_c the pairable values
    in category c and n their total: alpha = 1 - (n - 1) * D_o / D_e where D_o is the weight of
    disagreeing pairs within units (each unit's pairs weighted by 1 / (m_u - 1)) and
    D_e = sum_{c != k} n_c n_k.
    """
    return _krippendorff(_unit_counts(ratings))


def krippendorff_alpha_from_counts(counts: CountTable) -> Stat:
    """``krippendorff_alpha`` of a units x categories table of rating counts."""
    table = _count_table(counts)
    return Stat.undefined(NO_RATER_PAIRS) if table is None else _krippendorff(table)


def _gwet(counts: np.ndarray) -> Stat:
    paired = counts[counts.sum(axis=1) >= 2]
    rated = counts[counts.sum(axis=1) >= 1]
    k = counts.shape[1]
    if paired.shape[0] == 0:
        return Stat.undefined(NO_RATER_PAIRS)
    if k < 2:
        return Stat.undefined(ONE_CATEGORY_POSSIBLE)
    r = paired.sum(axis=1)
    observed = float(np.mean(np.sum(paired * (paired - 1.0), axis=1) / (r * (r - 1.0))))
    pi = np.mean(rated / rated.sum(axis=1, keepdims=True), axis=0)
    expected = float(np.sum(pi * (1.0 - pi))) / (k - 1)
    return Stat.of((observed - expected) / (1.0 - expected))


def gwet_ac1(ratings: RatingsMatrix, categories: Iterable[Hashable] | None = None) -> Stat:
    """Gwet's AC1 for any number of raters with missing ratings (Gwet 2014, unweighted).

    pa averages, over units with r_i >= 2 ratings, sum_k r_ik (r_ik - 1) / (r_i (r_i - 1));
    pi_k averages r_ik / r_i over every unit with at least one rating;
    pe = sum_k pi_k (1 - pi_k) / (K - 1), K the categories (``categories`` or those seen;
    always 2 for True/False); AC1 = (pa - pe) / (1 - pe).
    """
    return _gwet(_unit_counts(ratings, categories))


def gwet_ac1_from_counts(counts: CountTable) -> Stat:
    """``gwet_ac1`` of a units x categories table of rating counts (K: its columns)."""
    table = _count_table(counts)
    return Stat.undefined(NO_RATER_PAIRS) if table is None else _gwet(table)


def _pairwise(counts: np.ndarray) -> Stat:
    paired = counts[counts.sum(axis=1) >= 2]
    if paired.shape[0] == 0:
        return Stat.undefined(NO_RATER_PAIRS)
    m = paired.sum(axis=1)
    agreeing = float(np.sum(paired * (paired - 1.0)))
    return Stat.of(agreeing / float(np.sum(m * (m - 1.0))))


def pairwise_agreement(ratings: RatingsMatrix) -> Stat:
    """Mean pairwise percent agreement: of every pair of raters who rated the same unit (each
    unit and pair counted once), the share that gave the same label."""
    return _pairwise(_unit_counts(ratings))


def pairwise_agreement_from_counts(counts: CountTable) -> Stat:
    """``pairwise_agreement`` of a units x categories table of rating counts."""
    table = _count_table(counts)
    return Stat.undefined(NO_RATER_PAIRS) if table is None else _pairwise(table)
