"""Two judges on the same units: McNemar's exact test on their discordant verdicts, and a
cluster-bootstrap interval for the difference between their agreements with the humans."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

from leaderboard.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, _cluster_codes
from leaderboard.stats.intervals import check_confidence, check_counts
from leaderboard.stats.reasons import MCNEMAR_NO_DISCORDANT, NO_UNITS, SINGLE_CLUSTER
from leaderboard.stats.result import BootstrapInterval, Stat


def mcnemar_exact(only_first: int, only_second: int) -> Stat:
    """Two-sided exact McNemar p-value. ``only_first`` units the first judge marks hit and
    the second miss, ``only_second`` the reverse; under H0 (both judges mark hit equally
    often) each discordant unit goes either way with probability 1/2, so the p-value is
    twice the binomial tail of the smaller count, at most 1."""
    check_counts(only_first, only_first + only_second)
    discordant = int(only_first) + int(only_second)
    if discordant == 0:
        return Stat.undefined(MCNEMAR_NO_DISCORDANT)
    # Imported here: scipy.stats costs every process a second at start-up.
    from scipy.stats import binom

    # In log space, so that a lopsided split keeps its true p-value (1,000 against 0:
    # 1.9e-301) instead of rounding its tail to 0 on the way.
    log_p = math.log(2.0) + float(binom.logcdf(min(only_first, only_second), discordant, 0.5))
    return Stat.of(min(1.0, math.exp(log_p)))


def cluster_bootstrap_difference(
    first: Sequence[bool] | np.ndarray,
    second: Sequence[bool] | np.ndarray,
    cluster_ids: Sequence[Hashable] | np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> BootstrapInterval:
    """Percentile interval for agreement(first) - agreement(second), where ``first`` and
    ``second`` flag, unit by unit, whether each judge agrees with the humans on the same
    units. Whole clusters (cases) are resampled, both judges with the same draw, so the
    pairing and the dependence within a case are kept."""
    check_confidence(confidence)
    a = np.asarray(first, dtype=bool).reshape(-1)
    b = np.asarray(second, dtype=bool).reshape(-1)
    if a.size != b.size or a.size != len(cluster_ids):
        raise ValueError("one flag per unit for each judge, and one cluster id per unit")

    def result(low, high, reason, n_clusters) -> BootstrapInterval:
        return BootstrapInterval(
            low=low,
            high=high,
            reason=reason,
            n_resamples=int(n_resamples),
            seed=int(seed),
            n_clusters=n_clusters,
            n_units=int(a.size),
        )

    if a.size == 0:
        return result(None, None, NO_UNITS, 0)
    codes, n_clusters = _cluster_codes(cluster_ids)
    if n_clusters < 2:
        return result(None, None, SINGLE_CLUSTER, 1)
    difference = np.bincount(codes, weights=a.astype(np.int64) - b, minlength=n_clusters)
    units = np.bincount(codes, minlength=n_clusters)
    rng = np.random.default_rng(int(seed))
    picks = rng.integers(0, n_clusters, size=(int(n_resamples), n_clusters), dtype=np.int32)
    shares = difference[picks].sum(axis=1) / units[picks].sum(axis=1)
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(shares, [tail, 100.0 - tail])
    return result(float(low), float(high), None, n_clusters)


__all__ = ["DEFAULT_RESAMPLES", "cluster_bootstrap_difference", "mcnemar_exact"]
