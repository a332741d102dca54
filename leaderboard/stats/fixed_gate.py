"""The fixed-sample gate rules' bound, robust to criteria clustered within responses.

Criteria of one response are rated together and are correlated, so n units carry less
information than n independent ones. The pooled agreement is a ratio of sums,
p = sum(a_i) / sum(m_i) over responses i (a_i of m_i units agree). Its linearised
(Taylor) variance over k responses is

    v = k / (k - 1) * sum((a_i - p * m_i) ** 2) / (sum m_i) ** 2,

and the design effect is v over the binomial p(1 - p) / n, never taken below 1 (a rule that
clustering makes no looser). The bound is Wilson's at the effective n = n / deff, and the
binomial p-value is the normal test at the same effective n.

Repeated looks (one per complete round of a judge version) spend alpha: look k is tested
one-sided at alpha / 2 / 2 ** (k - 1), so the first look is the usual two-sided 95%
interval and the levels of all looks sum to at most alpha / 2 (a Bonferroni bound over an
unbounded number of looks). No Django here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from leaderboard.stats.intervals import wilson_bounds

DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class ClusteredBound:
    point: float | None
    units: int
    clusters: int
    design_effect: float | None
    effective_n: float | None
    lower: float | None
    upper: float | None
    one_sided_alpha: float
    p_value: float | None  # H0: agreement <= threshold, at the effective n

    def as_dict(self) -> dict:
        return {
            "point": self.point,
            "units": self.units,
            "clusters": self.clusters,
            "design_effect": self.design_effect,
            "effective_n": self.effective_n,
            "interval": None if self.lower is None else [self.lower, self.upper],
            "one_sided_alpha": self.one_sided_alpha,
            "p_value": self.p_value,
        }


def look_alpha(look: int, alpha: float = DEFAULT_ALPHA) -> float:
    """The one-sided level spent at look `look` (1, 2, ...)."""
    if look < 1:
        raise ValueError(f"looks are counted from 1, got {look!r}")
    return alpha / 2.0 / 2.0 ** (look - 1)


def design_effect(tallies: Sequence[tuple[int, int]]) -> float | None:
    """The clustered variance of the pooled agreement over the binomial one (at least 1);
    None when it cannot be estimated (fewer than two responses with units)."""
    used = [(a, m) for a, m in tallies if m > 0]
    k = len(used)
    n = sum(m for _, m in used)
    if k < 2 or n == 0:
        return None
    p = sum(a for a, _ in used) / n
    if p in (0.0, 1.0):
        return 1.0
    clustered = k / (k - 1) * sum((a - p * m) ** 2 for a, m in used) / n**2
    return max(1.0, clustered / (p * (1.0 - p) / n))


def clustered_bound(
    tallies: Sequence[tuple[int, int]],
    *,
    threshold: float,
    look: int = 1,
    alpha: float = DEFAULT_ALPHA,
) -> ClusteredBound:
    """The pooled agreement of per-response (agree, units) tallies, its Wilson interval at
    the effective n (two-sided, each side at look `look`'s one-sided level), and the
    one-sided p-value of "agreement <= threshold" at the same effective n."""
    for a, m in tallies:
        if not 0 <= a <= m:
            raise ValueError(f"need 0 <= agree <= units per response, got ({a}, {m})")
    one_sided = look_alpha(look, alpha)
    used = [(a, m) for a, m in tallies if m > 0]
    n = sum(m for _, m in used)
    if n == 0:
        return ClusteredBound(None, 0, 0, None, None, None, None, one_sided, None)
    p = sum(a for a, _ in used) / n
    deff = design_effect(used)
    # One response: its units' correlation cannot be estimated; count it as one unit.
    effective = n / deff if deff is not None else 1.0
    z = NormalDist().inv_cdf(1.0 - one_sided)
    low, high = wilson_bounds(p, effective, z)
    se0 = math.sqrt(threshold * (1.0 - threshold) / effective)
    p_value = 1.0 - NormalDist().cdf((p - threshold) / se0) if se0 > 0 else None
    return ClusteredBound(p, n, len(used), deff, effective, low, high, one_sided, p_value)
