"""Scores of one case: the S_d of each ability present and the case score."""

import math
from collections.abc import Mapping
from dataclasses import dataclass

from judging.scoring.inputs import CaseVerdicts, Profile, ScoredCriterion
from judging.scoring.reasons import CASE_NOT_SCORABLE, CATASTROPHIC_NOT_SCORABLE
from judging.scoring.values import Value, mean


@dataclass(frozen=True, slots=True)
class AbilityRange:
    """The sums behind one S_d: `low` <= `raw` <= `high` always holds."""

    raw: int
    low: int
    high: int


@dataclass(frozen=True)
class CaseScores:
    """One case's S_d per ability present (in first-appearance order) and its case score.

    `catastrophe` says whether the profile's catastrophic rule fired, so a 0 caused by it can
    be told apart from a 0 earned criterion by criterion.
    """

    case_id: str
    difficulty: str
    abilities: Mapping[str, float]
    score: Value
    catastrophe: bool


def scorable(criterion: ScoredCriterion) -> bool:
    """Only non-catastrophic criteria with a weight enter an ability's sums, in both
    profiles: the paper keeps catastrophic criteria out of the abilities, and the released
    code skips the `其他` dimension whatever its weight."""
    return not criterion.is_catastrophic and criterion.weight is not None


def log_normalised(raw: int, low: int, high: int) -> float:
    """S_d = 100 * ln(raw - low + 1) / ln(high - low + 1), or 0 when high - low <= 0.

    The ratio of the logarithms is taken first so that raw == high gives exactly 100.
    """
    span = high - low
    if span <= 0:
        return 0.0
    if not low <= raw <= high:
        raise ValueError(f"raw {raw} lies outside [{low}, {high}]")
    return 100.0 * (math.log(raw - low + 1) / math.log(span + 1))


def ability_ranges(case: CaseVerdicts) -> dict[str, AbilityRange]:
    """raw/min/max per ability over the case's scorable criteria; an ability without any
    scorable criterion gets no entry (it is absent from the case, not scored 0)."""
    sums: dict[str, list[int]] = {}
    for criterion in case.criteria:
        if not scorable(criterion):
            continue
        weight = criterion.weight
        assert weight is not None  # scorable() guarantees it; narrows the type
        raw_low_high = sums.setdefault(criterion.ability, [0, 0, 0])
        if criterion.hit:
            raw_low_high[0] += weight
        if weight < 0:
            raw_low_high[1] += weight
        else:
            raw_low_high[2] += weight
    return {label: AbilityRange(*values) for label, values in sums.items()}


def catastrophe_fires(case: CaseVerdicts, profile: Profile) -> bool:
    """Whether the case's ability scores are all forced to 0.

    `heartbench`: any hit catastrophic criterion. `heartbench-code`: only a hit catastrophic
    criterion with a positive weight, which is the released code's condition.
    """
    profile = Profile(profile)
    for criterion in case.criteria:
        if not (criterion.is_catastrophic and criterion.hit):
            continue
        if profile is Profile.HEARTBENCH:
            return True
        if criterion.weight is not None and criterion.weight > 0:
            return True
    return False


def score_case(case: CaseVerdicts, profile: Profile) -> CaseScores:
    """S_d of every ability present in the case and their mean as the case score.

    A case with no scorable ability gets an undefined score with a reason instead of 0.
    """
    profile = Profile(profile)
    fired = catastrophe_fires(case, profile)
    abilities = {
        label: 0.0 if fired else log_normalised(r.raw, r.low, r.high)
        for label, r in ability_ranges(case).items()
    }
    average = mean(abilities.values())
    if average is not None:
        score = Value.of(average)
    elif fired:
        score = Value.undefined(CATASTROPHIC_NOT_SCORABLE)
    else:
        score = Value.undefined(CASE_NOT_SCORABLE)
    return CaseScores(
        case_id=case.case_id,
        difficulty=case.difficulty,
        abilities=abilities,
        score=score,
        catastrophe=fired,
    )
