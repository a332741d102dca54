"""A floor on chance-corrected agreement for the gate: Cohen's kappa, or Gwet's AC1 where
one verdict is far more common than the other (kappa then collapses although the raters
agree), with a lower bound that allows for criteria clustered within a response.

For binary verdicts, with a = both met, b = judge only, c = experts only, d = neither, out
of n units, and po = (a + d) / n:
- Cohen's kappa: pe = ((a + b)(a + c) + (c + d)(b + d)) / n^2;
- Gwet's AC1: pi = (2a + b + c) / 2n, pe = 2 pi (1 - pi);
- both are (po - pe) / (1 - pe).
The lower bound is the one-sided percentile of a cluster bootstrap that resamples whole
responses with replacement (seeded, so a bundle re-derives it). No Django here."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from leaderboard.stats.reasons import KAPPA_ONE_CATEGORY, NO_JUDGED_UNITS, SINGLE_CLUSTER

KAPPA, AC1 = "cohen_kappa", "gwet_ac1"
STATISTICS = (KAPPA, AC1)


@dataclass(frozen=True)
class ChanceBound:
    statistic: str
    value: float | None
    lower: float | None  # one-sided lower bound at `confidence`
    confidence: float
    reason: str | None = None

    def as_dict(self) -> dict:
        return {
            "statistic": self.statistic,
            "value": self.value,
            "lower": self.lower,
            "confidence": self.confidence,
            "reason": self.reason,
        }


def _from_tables(tables: np.ndarray, statistic: str) -> np.ndarray:
    """The statistic of each row of (a, b, c, d) counts; NaN where it is undefined."""
    a, b, c, d = (tables[..., k].astype(np.float64) for k in range(4))
    n = a + b + c + d
    with np.errstate(divide="ignore", invalid="ignore"):
        po = (a + d) / n
        if statistic == KAPPA:
            pe = ((a + b) * (a + c) + (c + d) * (b + d)) / (n * n)
        else:
            pi = (2 * a + b + c) / (2 * n)
            pe = 2 * pi * (1 - pi)
        value = (po - pe) / (1 - pe)
    return np.where((n > 0) & (pe < 1 - 1e-12), value, np.nan)


def chance_statistic(judge: Sequence[bool], human: Sequence[bool], statistic: str) -> float | None:
    """Cohen's kappa or Gwet's AC1 of two aligned binary sequences (None: undefined)."""
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {STATISTICS}, got {statistic!r}")
    j, h = np.asarray(judge, dtype=bool), np.asarray(human, dtype=bool)
    table = np.array([np.sum(j & h), np.sum(j & ~h), np.sum(~j & h), np.sum(~j & ~h)])
    value = float(_from_tables(table[None, :], statistic)[0])
    return None if np.isnan(value) else value


def chance_lower_bound(
    judge: Sequence[bool],
    human: Sequence[bool],
    clusters: Sequence[Hashable],
    *,
    statistic: str,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> ChanceBound:
    """The statistic and its one-sided lower bound from a cluster bootstrap over responses
    (`clusters` gives each unit's response)."""
    value = chance_statistic(judge, human, statistic)
    j, h = np.asarray(judge, dtype=bool), np.asarray(human, dtype=bool)
    if j.size != h.size or j.size != len(clusters):
        raise ValueError("one judge verdict, one human verdict and one cluster per unit")
    if j.size == 0:
        return ChanceBound(statistic, None, None, confidence, NO_JUDGED_UNITS)
    if value is None:
        return ChanceBound(statistic, None, None, confidence, KAPPA_ONE_CATEGORY)
    _, codes = np.unique(np.asarray([str(c) for c in clusters]), return_inverse=True)
    k = int(codes.max()) + 1
    if k < 2:
        return ChanceBound(statistic, value, None, confidence, SINGLE_CLUSTER)
    cells = np.stack([j & h, j & ~h, ~j & h, ~j & ~h], axis=1).astype(np.int64)
    per_cluster = np.zeros((k, 4), dtype=np.int64)
    np.add.at(per_cluster, codes, cells)
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, k, size=(resamples, k))
    weights = np.zeros((resamples, k), dtype=np.int64)
    np.add.at(weights, (np.arange(resamples)[:, None], drawn), 1)
    boot = _from_tables(weights @ per_cluster, statistic)
    boot = boot[~np.isnan(boot)]
    lower = float(np.quantile(boot, 1.0 - confidence)) if boot.size else None
    return ChanceBound(statistic, value, lower, confidence)
