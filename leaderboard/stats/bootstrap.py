"""Cluster bootstrap interval for percent agreement.

Units of one dialogue (case) are not independent: the same conversation drives all of its
criteria. Resampling whole clusters with replacement keeps that dependence in the interval.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from leaderboard.stats.intervals import check_confidence
from leaderboard.stats.reasons import NO_UNITS, SINGLE_CLUSTER
from leaderboard.stats.result import BootstrapInterval

DEFAULT_SEED = 20251
DEFAULT_RESAMPLES = 1000
# Rows of the resample matrix summed at a time, to keep the gathered temporaries small.
_BLOCK_ELEMENTS = 1 << 22


def _cluster_codes(cluster_ids: Sequence[Hashable] | np.ndarray) -> tuple[np.ndarray, int]:
    """Number each unit's cluster 0..C-1 in order of first appearance: a numpy array of integers
    or strings through numpy, any other sequence of hashable ids through a dict (so that 1 and
    "1" stay apart)."""
    if (
        isinstance(cluster_ids, np.ndarray)
        and cluster_ids.ndim == 1
        and cluster_ids.dtype.kind in "biuUS"
    ):
        _, first, inverse = np.unique(cluster_ids, return_index=True, return_inverse=True)
        # Number clusters by first appearance, as the dict path does, so that a list and an
        # array of the same ids give the same resamples.
        rank = np.empty(first.size, dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(first.size)
        return rank[inverse.reshape(-1)], int(first.size)
    index: dict[Hashable, int] = {}
    codes = np.fromiter(
        (index.setdefault(cid, len(index)) for cid in cluster_ids),
        dtype=np.int64,
        count=len(cluster_ids),
    )
    return codes, len(index)


def cluster_bootstrap_agreement(
    agree: Sequence[bool] | np.ndarray,
    cluster_ids: Sequence[Hashable] | np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> BootstrapInterval:
    """Percentile interval for percent agreement, resampling whole clusters with replacement.

    ``agree`` holds one flag per unit (judge equals human consensus), ``cluster_ids`` the
    cluster (dialogue/case) of each unit. Each resample draws as many clusters as there are,
    with replacement, and takes the pooled agreement of their units. Same inputs and seed give
    the same interval.
    """
    check_confidence(confidence)
    if isinstance(n_resamples, bool) or int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive whole number, got {n_resamples!r}")
    n_resamples, seed = int(n_resamples), int(seed)
    flags = np.asarray(agree)
    if flags.ndim != 1 and flags.size:
        raise ValueError("agree must be one flag per unit")
    flags = flags.reshape(-1)
    if flags.dtype != bool:
        if flags.size and (
            flags.dtype.kind not in "iuf" or not np.all((flags == 0) | (flags == 1))
        ):
            raise ValueError("agree must hold True/False (or 1/0) flags, one per unit")
        flags = flags.astype(bool)
    if flags.size != len(cluster_ids):
        raise ValueError(f"{flags.size} agreement flags but {len(cluster_ids)} cluster ids")

    def result(
        low: float | None, high: float | None, reason: str | None, n_clusters: int
    ) -> BootstrapInterval:
        return BootstrapInterval(
            low=low,
            high=high,
            reason=reason,
            n_resamples=n_resamples,
            seed=seed,
            n_clusters=n_clusters,
            n_units=int(flags.size),
        )

    if flags.size == 0:
        return result(None, None, NO_UNITS, 0)
    codes, n_clusters = _cluster_codes(cluster_ids)
    if n_clusters < 2:
        return result(None, None, SINGLE_CLUSTER, 1)

    # Per cluster: how many units agree and how many units there are.
    agree_per_cluster = np.bincount(codes, weights=flags, minlength=n_clusters).astype(np.int64)
    units_per_cluster = np.bincount(codes, minlength=n_clusters).astype(np.int64)

    rng = np.random.default_rng(seed)
    picks = rng.integers(0, n_clusters, size=(n_resamples, n_clusters), dtype=np.int32)
    agreed = np.empty(n_resamples, dtype=np.int64)
    units = np.empty(n_resamples, dtype=np.int64)
    block = max(1, _BLOCK_ELEMENTS // n_clusters)
    for start in range(0, n_resamples, block):
        rows = picks[start : start + block]
        agreed[start : start + block] = agree_per_cluster[rows].sum(axis=1)
        units[start : start + block] = units_per_cluster[rows].sum(axis=1)
    # Every cluster has at least one unit, so no resample has zero units.
    shares = agreed / units
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(shares, [tail, 100.0 - tail])
    return result(float(low), float(high), None, n_clusters)
