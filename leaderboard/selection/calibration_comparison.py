"""Calibration → held-out (no Django): a judge version derived from a round's calibration
part against its parent, on held-out units only, paired unit by unit.

The difference of their agreements with the experts' majority (derived minus parent),
McNemar's exact test on the units only one of them gets right, and a cluster-bootstrap
interval of the difference with whole responses resampled (a response's criteria are
judged together). The verdict is a code: IMPROVED or WORSE when McNemar's test rejects
"no difference" at ALPHA, in the direction of the difference; NO_DETECTABLE_CHANGE
otherwise (also when the two never disagree). Nothing is ever said about the calibration
part: the version was built from it, so it would look better there whatever it learned."""

from collections.abc import Collection, Mapping

from leaderboard.selection.choice import Agreeing
from leaderboard.stats.paired import cluster_bootstrap_difference, mcnemar_exact
from leaderboard.stats.reasons import NO_PAIRED_UNITS

IMPROVED, NO_DETECTABLE_CHANGE, WORSE = "improved", "no_detectable_change", "worse"
VERDICTS = (IMPROVED, NO_DETECTABLE_CHANGE, WORSE)
ALPHA = 0.05

Flags = Mapping[tuple[int, int], Agreeing]


def verdict_of(difference: float | None, p: float | None, *, alpha: float = ALPHA) -> str:
    if difference is None or p is None or p >= alpha or difference == 0:
        return NO_DETECTABLE_CHANGE
    return IMPROVED if difference > 0 else WORSE


def held_out_comparison(
    parent: Flags,
    derived: Flags,
    *,
    calibration: Collection[int],
    resamples: int,
    alpha: float = ALPHA,
) -> dict:
    """`derived` against `parent` on the units both judged whose response is not in
    `calibration` (the derived version's own calibration part on this round, if any)."""
    shared = sorted(key for key in parent.keys() & derived.keys() if key[0] not in calibration)
    mine = [derived[key].agrees for key in shared]
    theirs = [parent[key].agrees for key in shared]
    only_parent = sum(1 for a, b in zip(theirs, mine, strict=True) if a and not b)
    only_derived = sum(1 for a, b in zip(theirs, mine, strict=True) if b and not a)
    n = len(shared)
    difference = (sum(mine) - sum(theirs)) / n if n else None
    interval = cluster_bootstrap_difference(
        mine, theirs, [key[0] for key in shared], n_resamples=resamples
    )
    p = mcnemar_exact(only_parent, only_derived)
    return {
        "units": n,
        "responses": len({key[0] for key in shared}),
        "difference": {"value": difference, "reason": None if n else NO_PAIRED_UNITS},
        "difference_95": {"low": interval.low, "high": interval.high, "reason": interval.reason},
        "parent_right_only": only_parent,
        "derived_right_only": only_derived,
        "mcnemar_p": {"value": p.value, "reason": p.reason},
        "alpha": alpha,
        "resamples": resamples,
        "clusters": "response",
        "verdict": verdict_of(difference, p.value, alpha=alpha),
    }
