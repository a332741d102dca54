"""The agreement report: the LLM judge against the human majority, unit by unit, with the
statistics and breakdowns researchers need. Pure: units in, numbers out (no Django)."""

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import NamedTuple

import numpy as np

from annotation.consensus import has_majority, is_tie, majority_hit
from leaderboard.gate.history import RoundTallies
from leaderboard.report.gate_decision import GateRule, gate, history_report_gate
from leaderboard.report.raters import (
    by_rater,
    human_statistics,
    interval_value,
    stat_value,
)
from leaderboard.report.typed import BREAKDOWNS, AgreementReport, Confusion, Excluded
from leaderboard.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    agreement_binomial_log10_p,
    agreement_binomial_test,
    binary_confusion,
    cluster_bootstrap_agreement,
    cohens_kappa,
    gwet_ac1_pair,
    pabak,
    percent_agreement,
    percent_agreement_from_counts,
    wilson_interval,
)
from leaderboard.stats.chance_floor import chance_lower_bound
from leaderboard.stats.reasons import NO_JUDGED_UNITS
from leaderboard.stats.threshold import AGREEMENT_GATE
from leaderboard.stats.weighted_share import WeightedShare, weighted_share_interval


class Unit(NamedTuple):
    """One (response, criterion) verdict pair. A named tuple: a report builds one per unit
    (~47,000 at full scale), three times faster than a frozen dataclass."""

    response: int
    case: str
    criterion: int
    ability: str
    category: str
    difficulty: str
    scenario: str
    system: str
    judge: bool | None  # None: the judge has no verdict (see `no_verdict`)
    votes: tuple[tuple[Hashable, bool], ...]  # (rater, hit), the raters' current votes
    # Why there is no judge verdict, when there is none: the call failed, the run did not
    # judge this response, or it judged it on another rubric version than the round froze.
    no_verdict: str = "failed"


# The reasons a unit has no judge verdict, as `Unit.no_verdict` names them.
FAILED, NOT_JUDGED, OTHER_VERSION = "failed", "not_judged", "other_version"


@dataclass(frozen=True)
class _Encoded:
    """The units as arrays, built in one pass over them: every count below is then array
    arithmetic rather than a walk over the ~47,000 units and ~140,000 votes of full scale."""

    judge: np.ndarray  # per unit: -1 without a judge verdict, else 0 (miss) or 1 (hit)
    votes: np.ndarray  # per unit: how many votes
    hits: np.ndarray  # per unit: how many of them are hits
    raters: list[Hashable]  # sorted by their text
    vote_unit: np.ndarray  # per vote: the index of its unit
    vote_rater: np.ndarray  # per vote: the index of its rater in ``raters``
    vote_hit: np.ndarray  # per vote: True for a hit
    # Per vote: how many votes, and hits, its rater gave on its unit (1 and its own hit,
    # unless the rater voted twice there).
    own_votes: np.ndarray
    own_hits: np.ndarray
    last: np.ndarray  # per vote: whether it is its rater's last vote on its unit

    @property
    def tie(self) -> np.ndarray:
        """As `majority` decides for True/False votes: a tie when half of the votes are hits."""
        return is_tie(self.votes, self.hits)

    @property
    def majority(self) -> np.ndarray:
        return has_majority(self.votes, self.hits)

    @property
    def label(self) -> np.ndarray:
        """The majority's verdict, where there is one."""
        return majority_hit(self.votes, self.hits)


def _judge_codes(units: Sequence[Unit]) -> np.ndarray:
    """Per unit: -1 without a judge verdict, else 0 (miss) or 1 (hit)."""
    return np.fromiter(
        (-1 if unit.judge is None else bool(unit.judge) for unit in units),
        dtype=np.int8,
        count=len(units),
    )


def judge_disagrees(units: Sequence[Unit]) -> list[int]:
    """Indexes of the units where the judge has a verdict and the human majority says the
    opposite; ties and units without votes are not disagreements (as in the report)."""
    n = len(units)
    votes = np.fromiter((len(unit.votes) for unit in units), dtype=np.int64, count=n)
    hits = np.fromiter(
        (sum(hit for _, hit in unit.votes) for unit in units), dtype=np.int64, count=n
    )
    judge = _judge_codes(units)
    differs = (judge >= 0) & ((judge == 1) != majority_hit(votes, hits))
    return np.flatnonzero(has_majority(votes, hits) & differs).tolist()


def _encode(units: Sequence[Unit]) -> _Encoded:
    n = len(units)
    per_unit = [unit.votes for unit in units]
    votes = np.fromiter(map(len, per_unit), dtype=np.int64, count=n)
    flat = [vote for unit_votes in per_unit for vote in unit_votes]
    by_rater = [rater for rater, _ in flat]
    raters = sorted(set(by_rater), key=str)
    index = {rater: i for i, rater in enumerate(raters)}
    vote_rater = np.fromiter(map(index.__getitem__, by_rater), dtype=np.int64, count=len(flat))
    vote_hit = np.fromiter((hit for _, hit in flat), dtype=bool, count=len(flat))
    vote_unit = np.repeat(np.arange(n, dtype=np.int64), votes)
    _, pair, size = np.unique(
        vote_unit * len(raters) + vote_rater, return_inverse=True, return_counts=True
    )
    last = np.zeros(size.size, dtype=np.int64)
    np.maximum.at(last, pair, np.arange(len(flat)))
    is_last = np.zeros(len(flat), dtype=bool)
    is_last[last] = True
    return _Encoded(
        judge=_judge_codes(units),
        votes=votes,
        hits=np.bincount(vote_unit[vote_hit], minlength=n),
        raters=raters,
        vote_unit=vote_unit,
        vote_rater=vote_rater,
        vote_hit=vote_hit,
        own_votes=size[pair],
        own_hits=np.bincount(pair[vote_hit], minlength=size.size)[pair],
        last=is_last,
    )


def _share(agreed: int, n: int, undefined: dict, prefix: str) -> dict:
    return {
        "units": n,
        "percent_agreement": stat_value(
            percent_agreement_from_counts(agreed, n), undefined, prefix
        ),
        "wilson_95": interval_value(wilson_interval(agreed, n), undefined, prefix + ".wilson"),
    }


def agreement_report(
    units: Sequence[Unit],
    *,
    threshold: float = AGREEMENT_GATE,
    rule: GateRule = GateRule.POINT,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    sequential: dict | None = None,
    history: Sequence[RoundTallies] | None = None,
    min_raters: int = 1,
    short_of: int = 0,
    chance_floor: tuple[str, float] | None = None,
    weights: Sequence[float] | None = None,
    sampling: dict | None = None,
) -> AgreementReport:
    """The report of `units`. `sequential` is the sequential test's state for the same
    round (leaderboard.sequential.evidence), kept in the report. `history` is the judge
    version's rounds, oldest first, ending with this one (leaderboard.gate.history): the
    gate then decides on all of them, refusing a round it cannot read; without it, on these
    units alone. Units with fewer than `short_of` votes are left out of the judge's
    agreement (counted in `short_of_raters`); the experts' own statistics keep
    every vote. `chance_floor` (a statistic of leaderboard.stats.chance_floor and its floor)
    adds a condition: the statistic's cluster-robust lower bound must reach the floor.
    `weights` (per unit, the inverse of its response's inclusion probability) make the
    percent agreement the Hájek estimate, sum(w * agree) / sum(w); equal weights give the
    plain share exactly. `sampling` (the round's design) is kept in the report."""
    undefined: dict[str, str] = {}
    encoded = _encode(units)
    majority, with_judge = encoded.majority, encoded.judge >= 0
    enough = encoded.votes >= short_of
    rows = np.flatnonzero(majority & with_judge & enough)
    judge = encoded.judge[rows] == 1
    human = encoded.label[rows]
    n = int(rows.size)
    agreeing = judge == human
    agree = int(np.count_nonzero(agreeing))
    point = stat_value(percent_agreement(judge, human), undefined, "percent_agreement")
    weighted = _weighted_share(weights, len(units), rows, agreeing) if weights is not None else None
    unweighted = point
    judged = [units[row] for row in rows.tolist()]
    spread = _weighted_interval(weights, rows, agreeing, judged) if weights is not None else None
    if weighted is not None:
        point = weighted
    wilson = interval_value(wilson_interval(agree, n), undefined, "wilson_95")
    boot = (
        cluster_bootstrap_agreement(
            agreeing,
            np.array([u.case for u in judged]),
            n_resamples=resamples,
            seed=seed,
        )
        if n
        else None
    )
    confusion = binary_confusion(judge, human)
    unjudged = majority & ~with_judge
    reasons = np.array([unit.no_verdict for unit in units], dtype=object)
    excluded = Excluded(
        ties=int(np.count_nonzero(encoded.tie)),
        no_consensus=int(np.count_nonzero(encoded.votes == 0)),
        judge_failed=int(np.count_nonzero(unjudged & (reasons == FAILED))),
        judge_missing=int(np.count_nonzero(unjudged & (reasons == NOT_JUDGED))),
        judge_other_version=int(np.count_nonzero(unjudged & (reasons == OTHER_VERSION))),
    )
    counts, tally = np.unique(encoded.votes, return_counts=True)
    # Each statistic below records why it is undefined, in this order (pages list them so).
    bootstrap_95 = interval_value(boot, undefined, "bootstrap_95") if boot else None
    cohen_kappa = stat_value(cohens_kappa(judge, human), undefined, "cohen_kappa")
    gwet_ac1 = stat_value(gwet_ac1_pair(judge, human), undefined, "gwet_ac1")
    pabak_value = stat_value(pabak(judge, human), undefined, "pabak")
    rates = Confusion(
        both_hit=confusion.both_hit,
        judge_only=confusion.judge_only,
        human_only=confusion.human_only,
        both_miss=confusion.both_miss,
        sensitivity=stat_value(confusion.sensitivity, undefined, "sensitivity"),
        specificity=stat_value(confusion.specificity, undefined, "specificity"),
        prevalence=stat_value(confusion.prevalence, undefined, "prevalence"),
    )
    binomial_p = (
        stat_value(agreement_binomial_test(agree, n, threshold), undefined, "binomial_p")
        if n
        else None
    )
    binomial_log10_p = (
        stat_value(agreement_binomial_log10_p(agree, n, threshold), undefined, "binomial_log10_p")
        if n
        else None
    )
    humans = human_statistics(encoded, undefined)
    if not n:
        undefined["binomial_p"] = NO_JUDGED_UNITS
        undefined["binomial_log10_p"] = NO_JUDGED_UNITS
        undefined.setdefault("bootstrap_95", NO_JUDGED_UNITS)
    design, weighted_95 = None, None
    if sampling is not None or weights is not None:
        design = {
            **(sampling or {}),
            "weights_applied": weights is not None,
            "gate_weighted": False,
            "percent_agreement_unweighted": unweighted,
        }
        if spread is not None:
            # The weighted share's own interval: the Wilson and bootstrap ones describe the
            # plain share, which the gate reads.
            weighted_95 = None if spread.low is None else [spread.low, spread.high]
            if spread.low is None:
                undefined["weighted_95"] = spread.reason
            design["weighted_interval"] = spread.as_dict()
    # The fixed rules stay on the plain share; the sequential test weights a round drawn
    # with unequal chances by itself (leaderboard.stats.sequential_weighted).
    decision = gate(
        point=unweighted, wilson_95=wilson, sequential=sequential, threshold=threshold, rule=rule
    )
    if history:
        decision = history_report_gate(
            decision, history, threshold=threshold, rule=rule, min_raters=min_raters
        )
    if chance_floor is not None:
        statistic, floor = chance_floor
        bound = chance_lower_bound(
            judge,
            human,
            [unit.response for unit in judged],
            statistic=statistic,
            resamples=resamples,
            seed=seed,
        )
        reached = bound.lower is not None and bound.lower >= floor
        decision["chance"] = {**bound.as_dict(), "floor": floor, "passed": reached}
        decision["passed"] = decision["passed"] and reached
    breakdowns = {
        f"by_{name}": _breakdown(
            list(map(attrgetter(name), judged)), agreeing, undefined, f"by_{name}"
        )
        for name in BREAKDOWNS
    }
    return AgreementReport(
        units=n,
        excluded=excluded,
        # How many units have each number of votes ("3": 40, "2": 5, ...), short ones shown.
        units_by_raters={
            str(int(c)): int(k) for c, k in sorted(zip(counts, tally, strict=True), reverse=True)
        },
        min_raters=short_of,
        short_of_raters=int(np.count_nonzero(majority & with_judge & ~enough)),
        percent_agreement=point,
        wilson_95=wilson,
        bootstrap_95=bootstrap_95,
        bootstrap={"resamples": resamples, "seed": seed, "clusters": "dialogue (case)"},
        cohen_kappa=cohen_kappa,
        gwet_ac1=gwet_ac1,
        pabak=pabak_value,
        confusion=rates,
        binomial_p=binomial_p,
        binomial_log10_p=binomial_log10_p,
        humans=humans,
        sampling=design,
        weighted_95=weighted_95,
        sequential=sequential,
        gate=decision,
        **breakdowns,
        by_rater=by_rater(encoded, undefined),
        undefined=undefined,
    )


def _weighted_share(
    weights: Sequence[float], n_units: int, rows: np.ndarray, agreeing: np.ndarray
) -> float | None:
    """The Hájek estimate of the share agreeing on the judged `rows`, or None without
    any. The weights are scaled by their smallest, so equal weights are exactly 1.0 and
    the ratio is the plain count over count, bit for bit."""
    w = np.asarray(weights, dtype=float)
    if w.shape != (n_units,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("weights must be finite and positive, one per unit")
    if not rows.size:
        return None
    w = w[rows]
    w = w / w.min()
    return float(np.sum(w[agreeing]) / np.sum(w))


def _weighted_interval(
    weights: Sequence[float], rows: np.ndarray, agreeing: np.ndarray, judged: list[Unit]
) -> WeightedShare | None:
    """The weighted share's interval on the judged `rows`, or None when their weights are
    all equal (the plain Wilson and bootstrap intervals are then the weighted share's)."""
    w = np.asarray(weights, dtype=float)[rows]
    if not w.size or np.all(w == w[0]):
        return None
    return weighted_share_interval(agreeing, w, [unit.case for unit in judged])


def _breakdown(groups: list[str], agreeing: np.ndarray, undefined: dict, name: str) -> dict:
    """Agreement per group: ``groups`` names each judged unit's group, ``agreeing`` says
    whether the judge and the majority agree on it."""
    distinct = set(groups)
    # A missing value (a case without a scene) is the group "", as in the leaderboard's
    # scenes and the exports; pages name it in the reader's language.
    names = sorted({group or "" for group in distinct})
    position = {group: i for i, group in enumerate(names)}
    code = {group: position[group or ""] for group in distinct}
    codes = np.fromiter(map(code.__getitem__, groups), dtype=np.int64, count=len(groups))
    units = np.bincount(codes, minlength=len(names)).tolist()
    agreed = np.bincount(codes[agreeing], minlength=len(names)).tolist()
    return {
        group: _share(agreed[i], units[i], undefined, f"{name}.{group}")
        for i, group in enumerate(names)
    }
