"""The interval of a percent agreement weighted by the inverse of each unit's inclusion
probability (the Hájek ratio sum(w * a) / sum(w)), for rounds whose responses were drawn
with unequal chances.

The variance is the ratio's linearised (sandwich) variance, with the units of one dialogue
summed before squaring, as the cluster bootstrap resamples whole dialogues:

    se^2 = G / (G - 1) * sum_c (sum_{i in c} w_i (a_i - p))^2 / (sum w)^2

over G dialogues (statsmodels' cluster-robust weighted least squares on a constant gives
the same). The interval is Wilson's at the effective number of units p (1 - p) / se^2, so
it stays within [0, 1] and behaves near 100% as the plain Wilson interval does; when every
unit agrees (or none does) the spread is 0 and the effective number is Kish's,
(sum w)^2 / sum w^2. No Django here.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from leaderboard.stats.bootstrap import _cluster_codes
from leaderboard.stats.intervals import check_confidence, wilson_bounds
from leaderboard.stats.reasons import NO_UNITS, SINGLE_CLUSTER

METHOD = (
    "Hájek ratio weighted by inverse inclusion probabilities; linearised variance clustered "
    "by dialogue; Wilson interval at the effective number of units"
)


@dataclass(frozen=True)
class WeightedShare:
    point: float | None
    se: float | None = None
    effective_units: float | None = None
    low: float | None = None
    high: float | None = None
    clusters: int = 0
    reason: str | None = None

    def as_dict(self) -> dict:
        return {
            "low": self.low,
            "high": self.high,
            "se": self.se,
            "effective_units": self.effective_units,
            "clusters": self.clusters,
            "reason": self.reason,
            "method": METHOD,
        }


def weighted_share_interval(
    agree: Sequence[bool] | np.ndarray,
    weights: Sequence[float] | np.ndarray,
    clusters: Sequence[Hashable] | np.ndarray,
    *,
    confidence: float = 0.95,
) -> WeightedShare:
    """The weighted share agreeing and its interval (see the module); undefined, with a
    reason, without units or with a single dialogue."""
    check_confidence(confidence)
    a = np.asarray(agree, dtype=float).reshape(-1)
    w = np.asarray(weights, dtype=float).reshape(-1)
    if a.shape != w.shape or a.size != len(clusters):
        raise ValueError("one flag, one weight and one dialogue per unit are needed")
    if not a.size:
        return WeightedShare(point=None, reason=NO_UNITS)
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("weights must be finite and positive")
    total = float(w.sum())
    point = float((w * a).sum() / total)
    codes, n_clusters = _cluster_codes(clusters)
    if n_clusters < 2:
        return WeightedShare(point=point, clusters=n_clusters, reason=SINGLE_CLUSTER)
    scores = np.bincount(codes, weights=w * (a - point), minlength=n_clusters)
    variance = n_clusters / (n_clusters - 1) * float((scores**2).sum()) / total**2
    if variance > 0 and 0 < point < 1:
        effective = point * (1 - point) / variance
    else:
        effective = total**2 / float((w**2).sum())
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    low, high = wilson_bounds(point, effective, z)
    return WeightedShare(
        point=point,
        se=math.sqrt(variance),
        effective_units=effective,
        low=low,
        high=high,
        clusters=n_clusters,
    )
