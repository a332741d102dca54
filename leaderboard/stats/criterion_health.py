"""Rubric health: whether a criterion (or an ability, its criteria pooled) is worth the
experts' hours. Pure: counts in, measures and flags out (no Django here).

Three questions, each with its own evidence:

- Do the experts agree on it? Their *unanimity*: of the units (response, criterion, in one
  round) that two or more experts rated, the share where all of them voted alike. A
  criterion experts often split on is *ambiguous*: its wording leaves room.
- Does the judge read it as the experts do? The judge's *disagreement* with the experts'
  majority, with a Wilson 95% interval. It *misreads* the criterion when even the interval's
  lower bound lies above what the agreement gate tolerates (1 - 0.75).
- Does it separate systems? Its *discrimination*: the mean absolute difference between two
  systems' judged hit rates, over all pairs of systems (Gini's mean difference), from 0 (every
  system gets the same verdict) to 1. With one response per system and case, as HeartBench
  has, it is the share of system pairs the criterion tells apart. *Saturation* (every system
  hit, or every system missed) is its extreme.

The thresholds below are the rules the pages, the command and the rubric editor apply; a
measure without enough data is undefined with a reason and never flags anything.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations

from judging.scoring.reasons import reason
from leaderboard.stats.intervals import wilson_interval
from leaderboard.stats.reasons import (
    HEALTH_FEW_RATED_UNITS,
    HEALTH_FEW_SYSTEMS,
    NO_JUDGED_UNITS,
    NO_RATER_PAIRS,
)
from leaderboard.stats.result import Interval, Stat
from leaderboard.stats.threshold import AGREEMENT_GATE

#: Ambiguous below this unanimity: experts split on more than a quarter of the units.
UNANIMITY_FLOOR = 0.75
#: Unanimity is undefined on fewer multiply-rated units (one split in three would flag).
MIN_RATED_UNITS = 4
#: The judge misreads a criterion when the lower bound of its disagreement's Wilson 95%
#: interval exceeds this: disagreement beyond what the agreement gate tolerates.
MISREAD_CEILING = 1.0 - AGREEMENT_GATE
#: Not discriminating below this: fewer than about one system pair in seven told apart
#: (one odd system out of fourteen gives 1/7).
DISCRIMINATION_FLOOR = 0.15
#: Discrimination needs at least two systems with judged verdicts.
MIN_SYSTEMS = 2

AMBIGUOUS = "ambiguous"
JUDGE_MISREADS = "judge_misreads"
NOT_DISCRIMINATING = "not_discriminating"
FLAGS = (AMBIGUOUS, JUDGE_MISREADS, NOT_DISCRIMINATING)

ALL_HIT = "all_hit"
ALL_MISSED = "all_missed"


@dataclass(frozen=True, slots=True)
class HealthCounts:
    """What the measures are computed from, for one criterion or a pool of them.

    ``system_hits`` maps each system to (judged hits, judged verdicts) on the criterion."""

    rated: int = 0  # units rated by two or more experts
    unanimous: int = 0  # of them, the units where every expert voted alike
    judged: int = 0  # units with an expert majority and a judge verdict
    disagreements: int = 0  # of them, the units where the verdict opposes the majority
    system_hits: Mapping[Hashable, tuple[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0 <= self.unanimous <= self.rated:
            raise ValueError(f"need 0 <= unanimous <= rated, got {self.unanimous}, {self.rated}")
        if not 0 <= self.disagreements <= self.judged:
            raise ValueError(
                f"need 0 <= disagreements <= judged, got {self.disagreements}, {self.judged}"
            )
        for system, (hits, total) in self.system_hits.items():
            if not 0 <= hits <= total or total == 0:
                raise ValueError(f"need 0 <= hits <= verdicts > 0 for {system!r}")


def pooled(counts: Iterable[HealthCounts]) -> HealthCounts:
    """The counts of several criteria together (an ability's): units and verdicts add up."""
    rated = unanimous = judged = disagreements = 0
    systems: dict[Hashable, tuple[int, int]] = {}
    for one in counts:
        rated += one.rated
        unanimous += one.unanimous
        judged += one.judged
        disagreements += one.disagreements
        for system, (hits, total) in one.system_hits.items():
            old_hits, old_total = systems.get(system, (0, 0))
            systems[system] = (old_hits + hits, old_total + total)
    return HealthCounts(rated, unanimous, judged, disagreements, systems)


def expert_unanimity(rated: int, unanimous: int) -> Stat:
    """The share of multiply-rated units on which every expert voted alike."""
    if rated == 0:
        return Stat.undefined(NO_RATER_PAIRS)
    if rated < (needed := MIN_RATED_UNITS):
        return Stat.undefined(reason(HEALTH_FEW_RATED_UNITS, units=rated, needed=needed))
    return Stat.of(unanimous / rated)


def judge_disagreement(judged: int, disagreements: int) -> tuple[Stat, Interval]:
    """The share of units where the judge's verdict opposes the experts' majority, with
    its Wilson 95% interval."""
    if judged == 0:
        return Stat.undefined(NO_JUDGED_UNITS), wilson_interval(0, 0)
    return Stat.of(disagreements / judged), wilson_interval(disagreements, judged)


def discrimination(rates: Iterable[float]) -> Stat:
    """Gini's mean difference of the systems' hit rates: the mean of |a - b| over all pairs."""
    rates = list(rates)
    if len(rates) < (needed := MIN_SYSTEMS):
        return Stat.undefined(reason(HEALTH_FEW_SYSTEMS, systems=len(rates), needed=needed))
    pairs = list(combinations(rates, 2))
    return Stat.of(sum(abs(a - b) for a, b in pairs) / len(pairs))


def saturation(system_hits: Mapping[Hashable, tuple[int, int]]) -> str | None:
    """ALL_HIT or ALL_MISSED when two or more systems were judged and every verdict was the
    same; None otherwise."""
    if len(system_hits) < MIN_SYSTEMS:
        return None
    if all(hits == total for hits, total in system_hits.values()):
        return ALL_HIT
    if all(hits == 0 for hits, _total in system_hits.values()):
        return ALL_MISSED
    return None


@dataclass(frozen=True, slots=True)
class Health:
    counts: HealthCounts
    unanimity: Stat
    disagreement: Stat
    disagreement_95: Interval
    discrimination: Stat
    saturation: str | None
    flags: tuple[str, ...]

    @property
    def systems(self) -> int:
        return len(self.counts.system_hits)


def health(counts: HealthCounts, *, catastrophic: bool = False) -> Health:
    """The measures of `counts` and the flags they raise. A catastrophic criterion is a
    safety net that good systems should all miss, so it is never flagged for not
    discriminating."""
    unanimity = expert_unanimity(counts.rated, counts.unanimous)
    disagreement, interval = judge_disagreement(counts.judged, counts.disagreements)
    spread = discrimination(hits / total for hits, total in counts.system_hits.values())
    flags = []
    if unanimity.value is not None and unanimity.value < UNANIMITY_FLOOR:
        flags.append(AMBIGUOUS)
    if interval.low is not None and interval.low > MISREAD_CEILING:
        flags.append(JUDGE_MISREADS)
    if not catastrophic and spread.value is not None and spread.value < DISCRIMINATION_FLOOR:
        flags.append(NOT_DISCRIMINATING)
    return Health(
        counts=counts,
        unanimity=unanimity,
        disagreement=disagreement,
        disagreement_95=interval,
        discrimination=spread,
        saturation=saturation(counts.system_hits),
        flags=tuple(flags),
    )


THRESHOLDS = {
    "unanimity_floor": UNANIMITY_FLOOR,
    "min_rated_units": MIN_RATED_UNITS,
    "misread_ceiling": MISREAD_CEILING,
    "discrimination_floor": DISCRIMINATION_FLOOR,
    "min_systems": MIN_SYSTEMS,
}
