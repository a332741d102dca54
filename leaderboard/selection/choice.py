"""Choosing a judge among the versions evaluated on one review round (no Django): what each
costs per 1,000 responses and how long a call takes, how each differs from the best one on
the units both judged, and which is the cheapest whose evidence passes the gate."""

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from annotation.consensus import has_majority, majority_hit
from leaderboard.report.agreement import Unit
from leaderboard.stats.paired import cluster_bootstrap_difference, mcnemar_exact
from leaderboard.stats.pairwise import percent_agreement_from_counts
from leaderboard.stats.reasons import (
    NO_JUDGE_COVERS_ROUND,
    NO_JUDGE_PASSES,
    NO_LATENCY_RECORDED,
    NO_PAIRED_UNITS,
    NO_PASSING_COST,
    NO_PRICES,
    NO_USAGE_RECORDED,
)
from leaderboard.stats.result import Stat

RESPONSES = 1000  # the cost is given per this many responses judged


def cost_per_thousand(
    *,
    prompt_tokens: int,
    completion_tokens: int,
    tasks: int,
    price_prompt_per_1k: Decimal,
    price_completion_per_1k: Decimal,
) -> Stat:
    """What judging 1,000 responses costs at these prices, from the tokens the calls of
    `tasks` responses reported (retries included: they are paid for too)."""
    if not tasks:
        return Stat.undefined(NO_USAGE_RECORDED)
    # A price of 0 is a price nobody set (the configuration's default), not a free token.
    if (prompt_tokens and not price_prompt_per_1k) or (
        completion_tokens and not price_completion_per_1k
    ):
        return Stat.undefined(NO_PRICES)
    spent = (
        Decimal(prompt_tokens) * price_prompt_per_1k
        + Decimal(completion_tokens) * price_completion_per_1k
    ) / 1000
    return Stat.of(float(spent * RESPONSES / tasks))


def summed_cost(costs: Sequence[Stat]) -> Stat:
    """The cost of calls priced apart (a panel's members, each at its own prices): their
    sum, or undefined, with the first reason, when any part is."""
    for cost in costs:
        if cost.value is None:
            return cost
    return Stat.of(sum(cost.value for cost in costs))


def median_latency(latencies_ms: Iterable[int]) -> Stat:
    """The median time of a call, in milliseconds, over the calls that recorded one."""
    recorded = [value for value in latencies_ms if value > 0]
    if not recorded:
        return Stat.undefined(NO_LATENCY_RECORDED)
    return Stat.of(float(statistics.median(recorded)))


@dataclass(frozen=True)
class Agreeing:
    """Whether a judge agrees with the experts' majority on one unit, and the unit's case."""

    agrees: bool
    case: str


def majorities(units: Sequence[Unit]) -> dict[tuple[int, int], bool]:
    """The experts' majority per (response, criterion) that has one (not a tie, not
    unvoted). Every judge's units of a round carry the same votes, so this is computed
    once for all of them."""
    gold = {}
    for unit in units:
        votes = len(unit.votes)
        hits = sum(1 for _rater, hit in unit.votes if hit)
        if has_majority(votes, hits):
            gold[(unit.response, unit.criterion)] = bool(majority_hit(votes, hits))
    return gold


def agreement_flags(
    units: Sequence[Unit], gold: dict[tuple[int, int], bool]
) -> dict[tuple[int, int], Agreeing]:
    """Per (response, criterion) with a majority (`gold`) and a judge verdict: does the
    judge agree."""
    flags = {}
    for unit in units:
        if unit.judge is None:
            continue
        key = (unit.response, unit.criterion)
        if key in gold:
            flags[key] = Agreeing(unit.judge == gold[key], unit.case)
    return flags


def versus_best(
    best: dict[tuple[int, int], Agreeing],
    other: dict[tuple[int, int], Agreeing],
    *,
    resamples: int,
) -> dict:
    """`other` against `best` on the units both judged: the difference of their agreements
    (other minus best), McNemar's exact test on the units only one of them gets right, and
    the cluster-bootstrap interval of the difference (whole cases resampled)."""
    shared = sorted(best.keys() & other.keys())
    mine = [other[key].agrees for key in shared]
    theirs = [best[key].agrees for key in shared]
    cases = [best[key].case for key in shared]
    only_best = sum(1 for a, b in zip(theirs, mine, strict=True) if a and not b)
    only_other = sum(1 for a, b in zip(theirs, mine, strict=True) if b and not a)
    n = len(shared)
    difference = (
        Stat.of(
            percent_agreement_from_counts(int(np.sum(mine)), n).value
            - percent_agreement_from_counts(int(np.sum(theirs)), n).value
        )
        if n
        else Stat.undefined(NO_PAIRED_UNITS)
    )
    interval = cluster_bootstrap_difference(mine, theirs, cases, n_resamples=resamples)
    p = mcnemar_exact(only_best, only_other)
    return {
        "units": n,
        "difference": {"value": difference.value, "reason": difference.reason},
        "difference_95": {"low": interval.low, "high": interval.high, "reason": interval.reason},
        "best_right_only": only_best,
        "this_right_only": only_other,
        "mcnemar_p": {"value": p.value, "reason": p.reason},
        "resamples": resamples,
    }


@dataclass(frozen=True)
class Candidate:
    """A judge version as the choice sees it."""

    key: int
    label: str
    agreement: float | None
    kappa: float | None
    passed: bool
    cost: float | None


def ranked(candidates: Iterable[Candidate]) -> list[Candidate]:
    """Best first: by agreement with the majority, then kappa, then name; a judge without
    an agreement comes last."""
    return sorted(
        candidates,
        key=lambda c: (
            c.agreement is None,
            -(c.agreement or 0.0),
            c.kappa is None,
            -(c.kappa or 0.0),
            c.label,
        ),
    )


def cheapest_passing(candidates: Sequence[Candidate]) -> tuple[Candidate | None, str | None]:
    """The passing judge with the lowest known cost (at equal cost the better agreeing
    one), or None and the reason there is none."""
    if not candidates:
        return None, NO_JUDGE_COVERS_ROUND
    passing = [c for c in candidates if c.passed]
    if not passing:
        return None, NO_JUDGE_PASSES
    priced = [c for c in passing if c.cost is not None]
    if not priced:
        return None, NO_PASSING_COST
    return min(priced, key=lambda c: (c.cost, -(c.agreement or 0.0), c.label)), None
