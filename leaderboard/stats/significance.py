"""Exact test of whether the judge's agreement with the humans exceeds a required level."""

from __future__ import annotations

from scipy.stats import binomtest

from leaderboard.stats.intervals import check_counts
from leaderboard.stats.result import Stat

#: HeartBench's methodology trusts a judge that agrees with the human consensus 75% of the time.
AGREEMENT_GATE = 0.75


def agreement_binomial_test(successes: int, n: int, threshold: float = AGREEMENT_GATE) -> Stat:
    """One-sided exact binomial p-value for H0: agreement <= threshold vs H1: agreement > it.

    ``successes`` of ``n`` units agree. A small p-value (e.g. < 0.05) means the agreement is
    statistically above the threshold; 80 of 100 against 0.75 gives p = 0.149, not significant.
    """
    check_counts(successes, n)
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must lie in [0, 1], got {threshold!r}")
    if n == 0:
        return Stat.undefined("no units, so there is nothing to test")
    result = binomtest(int(successes), int(n), float(threshold), alternative="greater")
    return Stat.of(min(1.0, max(0.0, float(result.pvalue))))
