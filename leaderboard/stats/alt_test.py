"""The Alternative Annotator Test (Calderon, Reichart & Dror, ACL 2025, arXiv 2501.10970):
can a judge replace one of the experts?

Each expert in turn is left out. On every instance that expert rated, the expert and the
judge are each scored by their accuracy against the remaining experts' labels (the share of
them they agree with). The judge "wins" the instance when its score is at least the
expert's, the expert when theirs is at least the judge's (a tie is a win for both). With
the difference of the two indicators per instance (expert minus judge), a one-sided
one-sample t-test asks whether its mean is below the cost margin epsilon:
H0: mean >= epsilon against H1: mean < epsilon. Rejecting H0 means the judge is at least as
good an annotator as that expert, up to epsilon. The p-values of all tested experts are
corrected together by Benjamini-Yekutieli (false discovery rate q, 0.05 by default); the
winning rate omega is the share of tested experts whose H0 is rejected, and the judge
passes when omega >= 0.5. The advantage probability (the mean over experts of the share of
instances the judge wins) compares judges: higher is better.

As the paper asks, an instance needs at least two experts' labels and the judge's; an
expert is tested only with at least `min_items` rated items, and the test is given only
with at least `min_experts` tested experts. An item here is a cluster of instances (in
Concord a response, whose criteria are the instances); without clusters each instance is
its own item, as in the paper.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from scipy.stats import t as student_t

from leaderboard.stats.reasons import ALT_FEW_EXPERTS, ALT_FEW_ITEMS, reason

MIN_ITEMS = 30
MIN_EXPERTS = 3
MIN_LABELS = 2
FDR_Q = 0.05
PASS_RATE = 0.5
EPSILONS = (0.1, 0.15, 0.2)


@dataclass(frozen=True)
class Instance:
    """One thing labelled: the judge's label and the experts' (expert, label) pairs.
    `item` groups instances rated together (a response's criteria); None: its own item."""

    key: Hashable
    judge: bool
    labels: tuple[tuple[Hashable, bool], ...]
    item: Hashable | None = None


@dataclass(frozen=True)
class Indicators:
    """One expert left out: per instance they rated, did the judge win, did the expert win."""

    expert: Hashable
    items: int
    judge_wins: tuple[int, ...]
    expert_wins: tuple[int, ...]

    @property
    def instances(self) -> int:
        return len(self.judge_wins)

    @property
    def differences(self) -> tuple[int, ...]:
        return tuple(e - j for e, j in zip(self.expert_wins, self.judge_wins, strict=True))

    @property
    def judge_advantage(self) -> float | None:
        """The share of the expert's instances the judge wins (the paper's rho)."""
        return sum(self.judge_wins) / self.instances if self.instances else None


@dataclass(frozen=True)
class ExpertResult:
    expert: Hashable
    items: int
    instances: int
    judge_advantage: float | None
    expert_advantage: float | None
    mean_difference: float | None
    p_value: float | None  # None: not tested (see reason)
    p_adjusted: float | None  # Benjamini-Yekutieli
    judge_wins: bool | None  # H0 rejected after the correction
    reason: str | None = None

    def as_dict(self) -> dict:
        return {
            "expert": self.expert,
            "items": self.items,
            "instances": self.instances,
            "judge_advantage": self.judge_advantage,
            "expert_advantage": self.expert_advantage,
            "mean_difference": self.mean_difference,
            "p_value": self.p_value,
            "p_adjusted": self.p_adjusted,
            "judge_wins": self.judge_wins,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class AltTestResult:
    epsilon: float
    q: float
    winning_rate: float | None
    passed: bool | None
    advantage_probability: float | None
    tested: int  # experts with enough items
    experts: tuple[ExpertResult, ...]
    reason: str | None = None

    def as_dict(self) -> dict:
        return {
            "epsilon": self.epsilon,
            "q": self.q,
            "winning_rate": self.winning_rate,
            "passed": self.passed,
            "advantage_probability": self.advantage_probability,
            "experts_tested": self.tested,
            "reason": self.reason,
            "experts": [expert.as_dict() for expert in self.experts],
        }


def _accuracy(label: bool, others: Sequence[bool]) -> Fraction:
    return Fraction(sum(1 for other in others if other == label), len(others))


def indicators(instances: Iterable[Instance], *, min_labels: int = MIN_LABELS) -> list[Indicators]:
    """Per expert (in order of first appearance), the win indicators on the instances they
    rated that have at least `min_labels` experts' labels."""
    judge_wins: dict[Hashable, list[int]] = defaultdict(list)
    expert_wins: dict[Hashable, list[int]] = defaultdict(list)
    items: dict[Hashable, set] = defaultdict(set)
    order: dict[Hashable, None] = {}
    for instance in instances:
        for expert, _label in instance.labels:
            order.setdefault(expert, None)
        if len(instance.labels) < min_labels:
            continue
        for position, (expert, label) in enumerate(instance.labels):
            others = [other for i, (_, other) in enumerate(instance.labels) if i != position]
            theirs = _accuracy(label, others)
            judge = _accuracy(instance.judge, others)
            judge_wins[expert].append(int(judge >= theirs))
            expert_wins[expert].append(int(theirs >= judge))
            items[expert].add(instance.key if instance.item is None else instance.item)
    return [
        Indicators(
            expert=expert,
            items=len(items[expert]),
            judge_wins=tuple(judge_wins[expert]),
            expert_wins=tuple(expert_wins[expert]),
        )
        for expert in order
    ]


def t_test_below(values: Sequence[int], margin: float) -> float:
    """The p-value of the one-sample t-test of H0: mean >= margin against H1: mean < margin.
    Integer values are summed exactly, so no variation is recognised as such: then the
    p-value is 0 when the mean is below the margin and 1 otherwise (the limits of the
    statistic, as scipy gives them)."""
    n = len(values)
    if n < 2:
        raise ValueError("the t-test needs at least two values")
    total = sum(values)
    squares = sum(value * value for value in values)
    spread = n * squares - total * total  # n (n - 1) times the sample variance
    mean = total / n
    if spread == 0:
        return 0.0 if mean < margin else 1.0
    std_error = math.sqrt(spread / (n * n * (n - 1)))
    return float(student_t.cdf((mean - margin) / std_error, df=n - 1))


def by_adjusted(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Yekutieli adjusted p-values (valid under any dependence): the step-up
    rule's p_(k) * m * c(m) / k, made monotone from the largest down and capped at 1,
    with c(m) = 1 + 1/2 + ... + 1/m."""
    m = len(p_values)
    if not m:
        return []
    harmonic = sum(1.0 / k for k in range(1, m + 1))
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        index = order[rank - 1]
        running = min(running, p_values[index] * m * harmonic / rank)
        adjusted[index] = running
    return adjusted


def alt_test(
    experts: Sequence[Indicators],
    *,
    epsilon: float,
    q: float = FDR_Q,
    min_items: int = MIN_ITEMS,
    min_experts: int = MIN_EXPERTS,
) -> AltTestResult:
    """The test at one epsilon, from the experts' indicators (`indicators`)."""
    if not 0 <= epsilon < 1:
        raise ValueError(f"epsilon must be in [0, 1), got {epsilon!r}")
    tested = [one for one in experts if one.items >= min_items and one.instances >= 2]
    p_values = [t_test_below(one.differences, epsilon) for one in tested]
    adjusted = dict(zip((one.expert for one in tested), by_adjusted(p_values), strict=True))
    raw = dict(zip((one.expert for one in tested), p_values, strict=True))
    enough = len(tested) >= min_experts
    results = []
    for one in experts:
        diffs = one.differences
        mean = sum(diffs) / len(diffs) if diffs else None
        common = {
            "expert": one.expert,
            "items": one.items,
            "instances": one.instances,
            "judge_advantage": one.judge_advantage,
            "expert_advantage": sum(one.expert_wins) / one.instances if one.instances else None,
            "mean_difference": mean,
        }
        if one.expert not in raw:
            short = reason(ALT_FEW_ITEMS, units=one.items, needed=min_items)
            results.append(
                ExpertResult(**common, p_value=None, p_adjusted=None, judge_wins=None, reason=short)
            )
            continue
        wins = adjusted[one.expert] <= q if enough else None
        results.append(
            ExpertResult(
                **common, p_value=raw[one.expert], p_adjusted=adjusted[one.expert], judge_wins=wins
            )
        )
    if not enough:
        return AltTestResult(
            epsilon=epsilon,
            q=q,
            winning_rate=None,
            passed=None,
            advantage_probability=None,
            tested=len(tested),
            experts=tuple(results),
            reason=reason(ALT_FEW_EXPERTS, units=len(tested), needed=min_experts),
        )
    rate = sum(1 for one in results if one.judge_wins) / len(tested)
    advantage = sum(one.judge_advantage for one in tested) / len(tested)
    return AltTestResult(
        epsilon=epsilon,
        q=q,
        winning_rate=rate,
        passed=rate >= PASS_RATE,
        advantage_probability=advantage,
        tested=len(tested),
        experts=tuple(results),
    )
