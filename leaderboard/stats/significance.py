"""Exact test of whether the judge's agreement with the humans exceeds a required level.

The p-value is summed in log space from the binomial's log-probabilities, so a judge that
agrees on almost every one of thousands of units gets its true p-value (say 9.35e-201)
rather than 0.0; below the smallest positive double (about 1e-308) only its base-10
logarithm is reported.
"""

from __future__ import annotations

import math

import numpy as np

from leaderboard.stats.intervals import check_counts
from leaderboard.stats.reasons import NO_UNITS_TO_TEST, P_VALUE_UNDERFLOW, P_VALUE_ZERO
from leaderboard.stats.result import Stat
from leaderboard.stats.threshold import AGREEMENT_GATE

# ln of the smallest positive normal double: below it exp() would give 0.0.
_LOG_TINY = math.log(np.finfo(float).tiny)


def _check(successes: int, n: int, threshold: float) -> None:
    check_counts(successes, n)
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"threshold must lie in [0, 1], got {threshold!r}")


def agreement_log_p(successes: int, n: int, threshold: float = AGREEMENT_GATE) -> float:
    """ln P(X >= successes) for X ~ Binomial(n, threshold): the one-sided p-value's log."""
    _check(successes, n, threshold)
    if successes <= 0:
        return 0.0
    # Imported here: scipy.stats takes about a second to import, which every command and
    # worker would pay at start-up through the URL configuration.
    from scipy.special import logsumexp
    from scipy.stats import binom

    logs = binom.logpmf(np.arange(int(successes), int(n) + 1), int(n), float(threshold))
    return min(0.0, float(logsumexp(logs)))


def agreement_binomial_test(successes: int, n: int, threshold: float = AGREEMENT_GATE) -> Stat:
    """One-sided exact binomial p-value for H0: agreement <= threshold vs H1: agreement > it.

    ``successes`` of ``n`` units agree. A small p-value (e.g. < 0.05) means the agreement is
    statistically above the threshold; 80 of 100 against 0.75 gives p = 0.149, not significant.
    """
    _check(successes, n, threshold)
    if n == 0:
        return Stat.undefined(NO_UNITS_TO_TEST)
    log_p = agreement_log_p(successes, n, threshold)
    if log_p == -math.inf:
        return Stat.of(0.0)  # exactly: a threshold of 0 allows no agreeing unit under H0
    if log_p < _LOG_TINY:
        return Stat.undefined(P_VALUE_UNDERFLOW)
    return Stat.of(min(1.0, math.exp(log_p)))


def agreement_binomial_log10_p(successes: int, n: int, threshold: float = AGREEMENT_GATE) -> Stat:
    """The same p-value's base-10 logarithm, defined however small the p-value is."""
    _check(successes, n, threshold)
    if n == 0:
        return Stat.undefined(NO_UNITS_TO_TEST)
    log_p = agreement_log_p(successes, n, threshold)
    if log_p == -math.inf:
        return Stat.undefined(P_VALUE_ZERO)
    return Stat.of(log_p / math.log(10))
