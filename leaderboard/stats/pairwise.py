"""Agreement of two aligned sequences of nominal labels: the LLM judge vs the human consensus.

Each function takes ``judge`` and ``human`` with one entry per unit (a (response, criterion)
verdict). Positions where either entry is missing (None or NaN, e.g. a unit whose experts tied)
are left out. Sequences of different lengths are a programming error and raise ValueError.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np

from leaderboard.stats._labels import encode_pairs
from leaderboard.stats.intervals import check_counts
from leaderboard.stats.reasons import KAPPA_ONE_CATEGORY, NO_JUDGED_UNITS, ONE_CATEGORY_POSSIBLE
from leaderboard.stats.result import Stat

Labels = Sequence[Hashable | None]


def percent_agreement(judge: Labels, human: Labels) -> Stat:
    """Share of units on which the judge gives the same label as the human consensus."""
    a, b, _ = encode_pairs(judge, human)
    return percent_agreement_from_counts(int(np.count_nonzero(a == b)), int(a.size))


def percent_agreement_from_counts(agreed: int, n: int) -> Stat:
    """``percent_agreement`` when ``agreed`` of ``n`` units are already counted."""
    check_counts(agreed, n)
    if n == 0:
        return Stat.undefined(NO_JUDGED_UNITS)
    return Stat.of(agreed / n)


def _kappa_from_table(table: np.ndarray) -> Stat:
    n = table.sum()
    if n <= 0:
        return Stat.undefined(NO_JUDGED_UNITS)
    observed = np.trace(table) / n
    expected = float(table.sum(axis=1) @ table.sum(axis=0)) / (n * n)
    if expected >= 1.0 - 1e-12:
        return Stat.undefined(KAPPA_ONE_CATEGORY)
    return Stat.of((observed - expected) / (1.0 - expected))


def cohens_kappa(judge: Labels, human: Labels) -> Stat:
    """Cohen's kappa: (po - pe) / (1 - pe), pe from the two raters' own marginal shares."""
    a, b, cats = encode_pairs(judge, human)
    table = np.zeros((len(cats), len(cats)), dtype=np.int64)
    np.add.at(table, (a, b), 1)
    return _kappa_from_table(table)


def cohens_kappa_table(table: Sequence[Sequence[float]] | np.ndarray) -> Stat:
    """Cohen's kappa of a square contingency table (rows: one rater, columns: the other)."""
    array = np.asarray(table, dtype=np.float64)
    if array.size == 0:
        return Stat.undefined(NO_JUDGED_UNITS)
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise ValueError(f"a contingency table is square, got shape {array.shape}")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError("a contingency table holds non-negative counts")
    return _kappa_from_table(array)


def _marginals(
    judge: Labels, human: Labels, categories: Iterable[Hashable] | None
) -> tuple[np.ndarray, np.ndarray, int]:
    a, b, cats = encode_pairs(judge, human, categories)
    return a, b, len(cats)


def gwet_ac1_pair(
    judge: Labels, human: Labels, categories: Iterable[Hashable] | None = None
) -> Stat:
    """Gwet's AC1 for two raters: pe = sum_k pi_k (1 - pi_k) / (K - 1), pi_k the mean share.

    K is the number of categories: ``categories`` when given, else the labels seen (for
    True/False verdicts always 2).
    """
    a, b, k = _marginals(judge, human, categories)
    if a.size == 0:
        return Stat.undefined(NO_JUDGED_UNITS)
    if k < 2:
        return Stat.undefined(ONE_CATEGORY_POSSIBLE)
    observed = np.count_nonzero(a == b) / a.size
    pi = (np.bincount(a, minlength=k) + np.bincount(b, minlength=k)) / (2.0 * a.size)
    expected = float(np.sum(pi * (1.0 - pi))) / (k - 1)
    return Stat.of((observed - expected) / (1.0 - expected))


def pabak(judge: Labels, human: Labels, categories: Iterable[Hashable] | None = None) -> Stat:
    """Prevalence- and bias-adjusted kappa: (K * po - 1) / (K - 1); 2 * po - 1 for binary."""
    a, b, k = _marginals(judge, human, categories)
    if a.size == 0:
        return Stat.undefined(NO_JUDGED_UNITS)
    if k < 2:
        return Stat.undefined(ONE_CATEGORY_POSSIBLE)
    observed = np.count_nonzero(a == b) / a.size
    return Stat.of((k * observed - 1.0) / (k - 1))
