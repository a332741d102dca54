"""Scores of one system over many cases: abilities, categories, overall, normal vs hard."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from judging.scoring.case import CaseScores, scorable, score_case
from judging.scoring.inputs import HARD, NORMAL, CaseVerdicts, Profile
from judging.scoring.reasons import (
    HARD_UNDEFINED,
    NO_CASES,
    NO_SCORABLE_CASE,
    NO_SIDE_CASES,
    NO_SIDE_SCORABLE,
    NORMAL_SCORE_ZERO,
    NORMAL_UNDEFINED,
    reason,
)
from judging.scoring.values import Value, mean


@dataclass(frozen=True)
class SystemScores:
    """Everything the leaderboard shows for one system under one profile.

    `abilities` and `categories` only hold what has at least one S_d, so their values are
    always defined; `cases` holds every case given, its score possibly undefined;
    `cases_scored` counts the cases with a defined score. Mappings keep first-appearance
    order of the input.
    """

    profile: Profile
    overall: Value
    normal: Value
    hard: Value
    relative_decline: Value
    abilities: Mapping[str, float]
    ability_case_counts: Mapping[str, int]
    categories: Mapping[str, float]
    cases: Mapping[str, Value]
    cases_scored: int


def _per_ability(results: Iterable[CaseScores]) -> dict[str, list[float]]:
    collected: dict[str, list[float]] = {}
    for result in results:
        for label, s_d in result.abilities.items():
            collected.setdefault(label, []).append(s_d)
    return collected


def ability_means(results: Iterable[CaseScores]) -> dict[str, float]:
    """Ability score = mean of its S_d over the cases that contain it; a case without the
    ability does not pull it towards 0."""
    return _means(_per_ability(results))


def _means(collected: Mapping[str, list[float]]) -> dict[str, float]:
    means = {}
    for label, values in collected.items():
        average = mean(values)
        assert average is not None  # every collected label has at least one S_d
        means[label] = average
    return means


def macro_average(ability_scores: Mapping[str, float], *, empty_reason: str) -> Value:
    """Overall = unweighted mean of the ability scores (HeartBench's macro average), so an
    ability with 23 criteria weighs as much as one with 565; undefined with `empty_reason`
    when there is no ability score."""
    average = mean(ability_scores.values())
    return Value.undefined(empty_reason) if average is None else Value.of(average)


def _subset_overall(results: tuple[CaseScores, ...], difficulty: str) -> Value:
    subset = [result for result in results if result.difficulty == difficulty]
    if not subset:
        return Value.undefined(NO_SIDE_CASES[difficulty])
    return macro_average(ability_means(subset), empty_reason=NO_SIDE_SCORABLE[difficulty])


def relative_decline(normal: Value, hard: Value) -> Value:
    """Decline of the hard score relative to the normal score: (normal - hard) / normal.

    HeartBench reports a "37.8%" Hard Set decay for 59.94 -> 43.49, which divides by the
    hard score; relative to the normal score the decline is 27.4%. Undefined, with the
    reason, when either score is undefined or the normal score is 0. Negative when the
    hard set scored higher.
    """
    if normal.value is None:
        return Value.undefined(reason(NORMAL_UNDEFINED, reason=normal.reason))
    if hard.value is None:
        return Value.undefined(reason(HARD_UNDEFINED, reason=hard.reason))
    if normal.value == 0:
        return Value.undefined(NORMAL_SCORE_ZERO)
    return Value.of((normal.value - hard.value) / normal.value)


def _ability_categories(cases: Iterable[CaseVerdicts]) -> dict[str, str]:
    """The category of each ability, from its scorable criteria; one ability in two
    categories would make category scores depend on input order, so it is refused."""
    categories: dict[str, str] = {}
    for case in cases:
        for criterion in case.criteria:
            if not scorable(criterion):
                continue
            known = categories.setdefault(criterion.ability, criterion.category)
            if known != criterion.category:
                raise ValueError(
                    f"ability {criterion.ability!r} is given two categories, {known!r} and "
                    f"{criterion.category!r} (case {case.case_id!r})"
                )
    return categories


def _category_scores(
    abilities: Mapping[str, float], categories: Mapping[str, str]
) -> dict[str, float]:
    """Category score = mean of the ability scores of its abilities (again a macro
    average, not a mean over criteria or cases)."""
    grouped: dict[str, list[float]] = {}
    for label, score in abilities.items():
        grouped.setdefault(categories[label], []).append(score)
    return _means(grouped)


def score_system(cases: Iterable[CaseVerdicts], profile: Profile | str) -> SystemScores:
    """Score one system's judged cases under `profile` ("heartbench" or "heartbench-code").

    Give only the cases whose judge call succeeded; failed cases are the caller's count.
    Duplicate case ids are refused because a case would otherwise count twice.
    """
    profile = Profile(profile)
    cases = tuple(cases)
    seen: set[str] = set()
    for case in cases:
        if case.case_id in seen:
            raise ValueError(f"case {case.case_id!r} is given twice")
        seen.add(case.case_id)
    categories = _ability_categories(cases)
    results = tuple(score_case(case, profile) for case in cases)

    per_ability = _per_ability(results)
    abilities = _means(per_ability)
    overall = macro_average(
        abilities,
        empty_reason=NO_CASES if not cases else NO_SCORABLE_CASE,
    )
    normal = _subset_overall(results, NORMAL)
    hard = _subset_overall(results, HARD)
    return SystemScores(
        profile=profile,
        overall=overall,
        normal=normal,
        hard=hard,
        relative_decline=relative_decline(normal, hard),
        abilities=abilities,
        ability_case_counts={label: len(values) for label, values in per_ability.items()},
        categories=_category_scores(abilities, categories),
        cases={result.case_id: result.score for result in results},
        cases_scored=sum(1 for result in results if result.score.is_defined),
    )
