"""Across systems: rank sets from corrected scores, and a test that the judge's bias is the
same for every system. No Django here.

Systems answer the same cases, so their corrected scores are correlated. Each `PPIMean`
keeps every response's centred contribution to its estimate, keyed by case; the covariance
of two systems' estimates is the sum over cases of the product of their contributions (a
sandwich estimate clustered by case), and a system's own variance is exactly its `se^2`.

Rank sets (a simpler valid method than Chatzi et al.'s prediction-powered ranking, NeurIPS
2024): 95% intervals on every pairwise difference of corrected scores, made simultaneous by
Bonferroni over the K(K-1)/2 pairs. System a is above b when the interval of a - b lies
wholly above 0. a's rank set runs from 1 + (the systems above a) to K - (the systems below
a). With probability at least 95% (asymptotically) every system's true rank, by the
experts' scores, lies in its set at once. A system without a corrected score (too few
labelled responses) could stand anywhere: it gets no set and widens the others'.

Bias test: the Wald test of "every system's bias is the same" on the K - 1 differences of
the biases from the last system's, with the case-clustered covariance; chi-squared with
K - 1 degrees of freedom.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy.stats import chi2, norm

from leaderboard.stats.ppi import ALPHA, PPIMean, z_value
from leaderboard.stats.reasons import PPI_BIAS_SINGULAR as SINGULAR
from leaderboard.stats.reasons import PPI_FEWER_THAN_TWO as FEWER_THAN_TWO
from leaderboard.stats.reasons import PPI_NOT_RANKED as NOT_RANKED


def _covariance(first: dict, second: dict) -> float:
    return math.fsum(value * second[key] for key, value in first.items() if key in second)


def _difference_se(first: dict, second: dict) -> float:
    keys = first.keys() | second.keys()
    return math.sqrt(math.fsum((first.get(k, 0.0) - second.get(k, 0.0)) ** 2 for k in keys))


@dataclass(frozen=True)
class Ranks:
    """Rank sets of the ranked systems (1 is the best) and what they rest on."""

    sets: dict[str, tuple[int, int]]
    ranked: int  # K, the systems with a corrected score
    pairs: int
    z: float  # the simultaneous critical value
    reason: str | None = None  # why some systems are not ranked


def rank_sets(fits: Mapping[str, PPIMean], *, alpha: float = ALPHA) -> Ranks:
    """Each system's set of ranks consistent with the data (see the module), among all the
    systems of `fits`. A system without a corrected score gets no set, and since it could
    stand anywhere, every other system's set widens to allow for it."""
    defined = {name: fit for name, fit in fits.items() if fit.corrected is not None}
    names = list(defined)
    k = len(names)
    pairs = k * (k - 1) // 2
    z = float(norm.isf(alpha / (2 * pairs))) if pairs else z_value(alpha)
    above = dict.fromkeys(names, 0)
    below = dict.fromkeys(names, 0)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            fa, fb = defined[a], defined[b]
            diff = fa.corrected - fb.corrected
            half = z * _difference_se(fa.influence, fb.influence)
            if diff - half > 0:
                below[a] += 1
                above[b] += 1
            elif diff + half < 0:
                below[b] += 1
                above[a] += 1
    sets = {name: (1 + above[name], len(fits) - below[name]) for name in names}
    return Ranks(
        sets=sets, ranked=k, pairs=pairs, z=z, reason=NOT_RANKED if k < len(fits) else None
    )


@dataclass(frozen=True)
class BiasTest:
    """The Wald test of equal bias, and the system whose bias is largest in size."""

    statistic: float | None
    df: int
    p_value: float | None
    largest: str | None
    reason: str | None = None


def equal_bias_test(fits: Mapping[str, PPIMean]) -> BiasTest:
    """Is the judge's bias the same for every system with a corrected score? (the module)"""
    defined = {name: fit for name, fit in fits.items() if fit.bias is not None}
    largest = max(defined, key=lambda name: abs(defined[name].bias), default=None)
    k = len(defined)
    if k < 2:
        return BiasTest(None, max(k - 1, 0), None, largest, FEWER_THAN_TWO)
    names = list(defined)
    bias = np.array([defined[name].bias for name in names])
    cov = np.array(
        [
            [_covariance(defined[a].bias_influence, defined[b].bias_influence) for b in names]
            for a in names
        ]
    )
    contrast = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
    diff = contrast @ bias
    middle = contrast @ cov @ contrast.T
    if np.linalg.matrix_rank(middle) < k - 1:
        return BiasTest(None, k - 1, None, largest, SINGULAR)
    statistic = float(diff @ np.linalg.solve(middle, diff))
    return BiasTest(statistic, k - 1, float(chi2.sf(statistic, k - 1)), largest)


DEFAULT_BIAS_MARGIN = 5.0  # points


def bias_beyond(
    fits: Mapping[str, PPIMean], *, margin: float = DEFAULT_BIAS_MARGIN
) -> list[tuple[str, float, float, float]]:
    """(system, bias, low, high) of every system whose 95% bias interval lies wholly
    outside +-`margin` points, largest bias first: the judge is surely more than `margin`
    points lenient (or strict) with it."""
    if margin < 0:
        raise ValueError(f"the margin must not be negative, got {margin!r}")
    found = []
    for name, fit in fits.items():
        interval = fit.bias_interval()
        if interval is None:
            continue
        low, high = interval
        if low > margin or high < -margin:
            found.append((name, fit.bias, low, high))
    return sorted(found, key=lambda item: (-abs(item[1]), item[0]))
