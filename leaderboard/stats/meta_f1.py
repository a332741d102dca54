"""HealthBench's meta-evaluation (Arora et al. 2025; openai/simple-evals,
`healthbench_meta_eval.py`): a rater's macro F1 against the other raters.

A rater's label on an instance is compared with each other rater's label there, one pair
at a time, pooled over the instances, the other label standing as the truth. Precision of
"met" is the share of agreeing pairs among the pairs where the rater said "met", recall of
"met" the share among the pairs where the other said "met"; their harmonic mean is the F1
of "met", and likewise for "not met". The macro F1 is the mean of the two. The judge is
compared with every expert on the instance, each expert with the other experts, so the
judge's F1 stands beside each expert's on the same footing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from leaderboard.stats.alt_test import Instance
from leaderboard.stats.reasons import F1_ONE_CLASS, NO_UNITS, RATER_NO_UNITS
from leaderboard.stats.result import Stat


@dataclass
class PairCounts:
    """Pairs (own label, other's label) of one rater, counted."""

    met_met: int = 0
    met_not: int = 0
    not_met: int = 0
    not_not: int = 0

    def add(self, own: bool, other: bool) -> None:
        if own and other:
            self.met_met += 1
        elif own:
            self.met_not += 1
        elif other:
            self.not_met += 1
        else:
            self.not_not += 1

    @property
    def pairs(self) -> int:
        return self.met_met + self.met_not + self.not_met + self.not_not


def _f1(agree: int, own: int, other: int) -> float | None:
    """F1 of one class: `agree` pairs where both said it, `own` where the rater did,
    `other` where the other did. None when either side never said it."""
    if not own or not other:
        return None
    precision, recall = agree / own, agree / other
    if precision == 0 and recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def macro_f1(counts: PairCounts, *, empty_reason: str = NO_UNITS) -> Stat:
    if not counts.pairs:
        return Stat.undefined(empty_reason)
    met = _f1(counts.met_met, counts.met_met + counts.met_not, counts.met_met + counts.not_met)
    not_met = _f1(counts.not_not, counts.not_not + counts.not_met, counts.not_not + counts.met_not)
    if met is None or not_met is None:
        return Stat.undefined(F1_ONE_CLASS)
    return Stat.of((met + not_met) / 2)


@dataclass(frozen=True)
class RaterF1:
    rater: Hashable
    pairs: int
    f1: Stat

    def as_dict(self) -> dict:
        return {"rater": self.rater, "pairs": self.pairs, "value": self.f1.value,
                "reason": self.f1.reason}  # fmt: skip


def meta_f1(instances: Iterable[Instance], *, min_labels: int = 2) -> tuple[RaterF1, list[RaterF1]]:
    """The judge's macro F1 against the experts, and each expert's against the others (in
    order of first appearance), on the instances with at least `min_labels` experts'
    labels."""
    judge = PairCounts()
    experts: dict[Hashable, PairCounts] = defaultdict(PairCounts)
    order: dict[Hashable, None] = {}
    for instance in instances:
        for expert, _label in instance.labels:
            order.setdefault(expert, None)
        if len(instance.labels) < min_labels:
            continue
        for position, (expert, label) in enumerate(instance.labels):
            judge.add(instance.judge, label)
            for other_position, (_, other) in enumerate(instance.labels):
                if other_position != position:
                    experts[expert].add(label, other)
    return (
        RaterF1("judge", judge.pairs, macro_f1(judge)),
        [
            RaterF1(e, experts[e].pairs, macro_f1(experts[e], empty_reason=RATER_NO_UNITS))
            for e in order
        ],
    )
