"""The agreement report: the LLM judge against the human majority, unit by unit, with the
statistics and breakdowns researchers need. Pure: units in, numbers out (no Django)."""

from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from leaderboard.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    Stat,
    agreement_binomial_test,
    binary_confusion,
    cluster_bootstrap_agreement,
    cohens_kappa,
    fleiss_kappa_from_ratings,
    gwet_ac1,
    gwet_ac1_pair,
    krippendorff_alpha,
    pabak,
    pairwise_agreement,
    percent_agreement,
    wilson_interval,
)
from leaderboard.stats.consensus import MAJORITY, NO_VOTES, TIE


class GateRule(StrEnum):
    POINT = "point"  # the method's rule: the point estimate reaches the threshold
    LOWER_BOUND = "lower_bound"  # stricter: the 95% interval's lower bound reaches it


@dataclass(frozen=True)
class Unit:
    """One (response, criterion) verdict pair."""

    response: int
    case: str
    criterion: int
    ability: str
    category: str
    difficulty: str
    scenario: str
    system: str
    judge: bool | None  # None: the judge has no verdict (a failed call)
    votes: tuple[tuple[Hashable, bool], ...]  # (rater, hit), the raters' current votes


def _stat(stat: Stat, report_undefined: dict, name: str) -> float | None:
    if stat.value is None:
        report_undefined[name] = stat.reason
        return None
    return round(stat.value, 4)


def _interval(interval: Interval, report_undefined: dict, name: str) -> list | None:
    if interval.low is None:
        report_undefined[name] = interval.reason
        return None
    return [round(interval.low, 4), round(interval.high, 4)]


def _binary_majority(votes: tuple[tuple[Hashable, bool], ...]) -> tuple[str, bool | None]:
    """`majority` for True/False votes by counting, which the report does for every unit
    and every rater's peers (about 200,000 times at full scale)."""
    hits, total = sum(hit for _, hit in votes), len(votes)
    if total == 0:
        return NO_VOTES, None
    if 2 * hits == total:
        return TIE, None
    return MAJORITY, 2 * hits > total


def _share(judge: np.ndarray, human: np.ndarray, undefined: dict, prefix: str) -> dict:
    agree = int(np.count_nonzero(judge == human))
    return {
        "units": len(judge),
        "percent_agreement": _stat(percent_agreement(judge, human), undefined, prefix),
        "wilson_95": _interval(wilson_interval(agree, len(judge)), undefined, prefix + ".wilson"),
    }


def agreement_report(
    units: Sequence[Unit],
    *,
    threshold: float = 0.75,
    rule: GateRule = GateRule.POINT,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict:
    undefined: dict[str, str] = {}
    ties = no_consensus = judge_missing = 0
    judged: list[tuple[Unit, bool]] = []
    for unit in units:
        outcome, label = _binary_majority(unit.votes)
        if outcome == TIE:
            ties += 1
        elif outcome != MAJORITY:
            no_consensus += 1
        elif unit.judge is None:
            judge_missing += 1
        else:
            judged.append((unit, label))
    judge = np.fromiter((bool(u.judge) for u, _ in judged), dtype=bool, count=len(judged))
    human = np.fromiter((label for _, label in judged), dtype=bool, count=len(judged))
    n = len(judged)
    agree = int(np.count_nonzero(judge == human))
    point = _stat(percent_agreement(judge, human), undefined, "percent_agreement")
    wilson = _interval(wilson_interval(agree, n), undefined, "wilson_95")
    boot = (
        cluster_bootstrap_agreement(
            judge == human,
            np.array([u.case for u, _ in judged]),
            n_resamples=resamples,
            seed=seed,
        )
        if n
        else None
    )
    confusion = binary_confusion(judge, human)
    report = {
        "units": n,
        "excluded": {"ties": ties, "no_consensus": no_consensus, "judge_missing": judge_missing},
        "percent_agreement": point,
        "wilson_95": wilson,
        "bootstrap_95": _interval(boot, undefined, "bootstrap_95") if boot else None,
        "bootstrap": {"resamples": resamples, "seed": seed, "clusters": "dialogue (case)"},
        "cohen_kappa": _stat(cohens_kappa(judge, human), undefined, "cohen_kappa"),
        "gwet_ac1": _stat(gwet_ac1_pair(judge, human), undefined, "gwet_ac1"),
        "pabak": _stat(pabak(judge, human), undefined, "pabak"),
        "confusion": {
            "both_hit": confusion.both_hit,
            "judge_only": confusion.judge_only,
            "human_only": confusion.human_only,
            "both_miss": confusion.both_miss,
            "sensitivity": _stat(confusion.sensitivity, undefined, "sensitivity"),
            "specificity": _stat(confusion.specificity, undefined, "specificity"),
            "prevalence": _stat(confusion.prevalence, undefined, "prevalence"),
        },
        "binomial_p": _stat(agreement_binomial_test(agree, n, threshold), undefined, "binomial_p")
        if n
        else None,
        "humans": _human_statistics(units, undefined),
    }
    if not n:
        undefined["binomial_p"] = "no units with both a consensus and a judge verdict"
        undefined.setdefault("bootstrap_95", "no units with both a consensus and a judge verdict")
    report["gate"] = gate(report, threshold=threshold, rule=rule)
    for name, key in (
        ("by_ability", lambda u: u.ability),
        ("by_category", lambda u: u.category),
        ("by_difficulty", lambda u: u.difficulty),
        ("by_scenario", lambda u: u.scenario),
        ("by_system", lambda u: u.system),
    ):
        report[name] = _breakdown(judged, key, undefined, name)
    report["by_rater"] = _by_rater(judged, units, undefined)
    report["undefined"] = undefined
    return report


def gate(report: dict, *, threshold: float, rule: GateRule) -> dict:
    point = report["percent_agreement"]
    lower = report["wilson_95"][0] if report["wilson_95"] else None
    tested = point if rule == GateRule.POINT else lower
    passed = tested is not None and tested >= threshold
    if rule == GateRule.POINT:
        text = f"agreement (point estimate) >= {threshold:.2f}"
    else:
        text = f"lower bound of the Wilson 95% interval >= {threshold:.2f}"
    return {
        "threshold": threshold,
        "passed": passed,
        "rule": text,
        "rule_name": str(rule),
        "point": point,
        "lower_bound": lower,
        "reason": None if tested is not None else "agreement is undefined: no units",
    }


def _breakdown(
    judged: list[tuple[Unit, bool]], key: Callable[[Unit], str], undefined: dict, name: str
) -> dict:
    groups: dict[str, list[int]] = defaultdict(list)
    for index, (unit, _) in enumerate(judged):
        groups[key(unit) or "-"].append(index)
    judge = np.fromiter((bool(u.judge) for u, _ in judged), dtype=bool, count=len(judged))
    human = np.fromiter((label for _, label in judged), dtype=bool, count=len(judged))
    return {
        group: _share(judge[rows], human[rows], undefined, f"{name}.{group}")
        for group, rows in sorted(groups.items())
    }


def _ratings_matrix(units: Sequence[Unit]) -> tuple[list[Hashable], np.ndarray]:
    """Raters x units, 1.0 for a hit, 0.0 for a miss and NaN where a rater did not vote: a
    float array takes the statistics' vectorised path."""
    raters = sorted({rater for unit in units for rater, _ in unit.votes}, key=str)
    index = {rater: i for i, rater in enumerate(raters)}
    matrix = np.full((len(raters), len(units)), np.nan)
    for column, unit in enumerate(units):
        for rater, hit in unit.votes:
            matrix[index[rater], column] = 1.0 if hit else 0.0
    return raters, matrix


def _human_statistics(units: Sequence[Unit], undefined: dict) -> dict:
    voted = [u for u in units if u.votes]
    if not voted:
        undefined["humans"] = "no votes"
        return {
            "fleiss_kappa": None,
            "krippendorff_alpha": None,
            "gwet_ac1": None,
            "pairwise_agreement": None,
            "units": 0,
        }
    _, matrix = _ratings_matrix(voted)
    # Fleiss' kappa needs the same number of ratings per unit: the usual count only.
    counts = defaultdict(int)
    for unit in voted:
        counts[len(unit.votes)] += 1
    usual = max(counts, key=lambda k: (counts[k], k))
    complete = [[hit for _, hit in u.votes] for u in voted if len(u.votes) == usual]
    return {
        "units": len(voted),
        "fleiss_kappa": _stat(
            fleiss_kappa_from_ratings(complete, categories=[False, True]),
            undefined,
            "humans.fleiss_kappa",
        ),
        "fleiss_units": len(complete),
        "krippendorff_alpha": _stat(
            krippendorff_alpha(matrix), undefined, "humans.krippendorff_alpha"
        ),
        "gwet_ac1": _stat(gwet_ac1(matrix, categories=[False, True]), undefined, "humans.gwet_ac1"),
        "pairwise_agreement": _stat(
            pairwise_agreement(matrix), undefined, "humans.pairwise_agreement"
        ),
    }


def _by_rater(judged: list[tuple[Unit, bool]], units: Sequence[Unit], undefined: dict) -> dict:
    """Per rater: agreement with the majority of the other raters (the human ceiling) and
    the judge's agreement with that rater, on the same units."""
    with_others: dict[Hashable, list[bool]] = defaultdict(list)
    judge_with: dict[Hashable, list[bool]] = defaultdict(list)
    for unit in units:
        for rater, hit in unit.votes:
            outcome, label = _binary_majority(tuple(v for v in unit.votes if v[0] != rater))
            if outcome == MAJORITY:
                with_others[rater].append(label == hit)
            if unit.judge is not None:
                judge_with[rater].append(unit.judge == hit)
    result = {}
    for rater in sorted(set(with_others) | set(judge_with), key=str):
        a, b = with_others.get(rater, []), judge_with.get(rater, [])
        result[str(rater)] = {
            "units": len(b),
            "agreement_with_others": round(sum(a) / len(a), 4) if a else None,
            "judge_agreement": round(sum(b) / len(b), 4) if b else None,
        }
        if not a:
            undefined[f"by_rater.{rater}"] = "no unit where the other raters have a majority"
    return result
