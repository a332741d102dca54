"""Corrected scores in simulated rounds: how often the 95% interval covers the experts'
true score, whether the equal-bias test keeps its level, and how much narrower the
corrected interval is than the experts-only one.

Each simulated round: `systems` systems answer the same `cases` cases; every case has its
own difficulty (shared by the systems, so their scores are paired by case), every system
its level; a response's rubric has `criteria` binary criteria of one ability, scored
100 * hits / criteria. The experts' verdict on a criterion is the truth; the judge agrees
with it with probability `agreement` (plus, optionally, a lean towards "met" for one
system). A uniform random `labelled` of each system's responses are labelled.

    .venv/bin/python -m bench.ppi_coverage [--rounds 1000] [--seed 0]

It prints its figures; it asserts nothing (tests/leaderboard/test_ppi_coverage.py does).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from leaderboard.stats.ppi import ppi_mean
from leaderboard.stats.ppi_ranks import equal_bias_test


@dataclass(frozen=True)
class Design:
    systems: int = 4
    cases: int = 296  # HeartBench's public set
    labelled: int = 89  # a 30% round
    criteria: int = 10  # about HeartBench's mean per case
    agreement: float = 0.85
    case_spread: float = 1.5  # sd of the cases' ease, on the logit scale
    level_spread: float = 0.5  # sd of the systems' levels; 0: every system alike
    lenient_system: int | None = None  # this system's judge says "met" more often
    lenience: float = 0.0  # extra probability of "met" on its unmet criteria


def simulate_round(rng: np.random.Generator, design: Design):
    """Per system: the experts' values on every response (the truth), and the judge's."""
    case_ease = rng.normal(0, design.case_spread, design.cases)
    experts, judges = [], []
    for system in range(design.systems):
        level = rng.normal(0, design.level_spread)
        p_met = 1 / (1 + np.exp(-(case_ease + level)))
        truth = rng.random((design.cases, design.criteria)) < p_met[:, None]
        agrees = rng.random(truth.shape) < design.agreement
        judge = np.where(agrees, truth, ~truth)
        if system == design.lenient_system:
            judge = judge | (~truth & (rng.random(truth.shape) < design.lenience))
        experts.append(100 * truth.mean(axis=1))
        judges.append(100 * judge.mean(axis=1))
    return experts, judges


def fit_round(rng: np.random.Generator, design: Design):
    experts, judges = simulate_round(rng, design)
    labelled = rng.permutation(design.cases)[: design.labelled]
    mask = np.zeros(design.cases, dtype=bool)
    mask[labelled] = True
    keys = np.arange(design.cases)
    fits = {}
    for system, (y_all, yhat_all) in enumerate(zip(experts, judges, strict=True)):
        fits[f"S{system}"] = ppi_mean(
            y=y_all[mask],
            yhat=yhat_all[mask],
            yhat_unlabelled=yhat_all[~mask],
            keys=keys[mask].tolist(),
            unlabelled_keys=keys[~mask].tolist(),
        )
    truths = {f"S{s}": float(y.mean()) for s, y in enumerate(experts)}
    return fits, truths, experts, mask


@dataclass(frozen=True)
class Figures:
    rounds: int
    coverage: float
    bias_coverage: float
    bias_test_rejections: float
    width_ratio: float  # corrected width / experts-only width, median
    effective_n: float  # median
    labelled: int


def run(*, rounds: int, seed: int, design: Design | None = None) -> Figures:
    design = design or Design()
    rng = np.random.default_rng(seed)
    covered = bias_covered = total = rejected = 0
    ratios, effective = [], []
    for _ in range(rounds):
        fits, truths, _experts, _mask = fit_round(rng, design)
        for name, fit in fits.items():
            low, high = fit.interval()
            covered += low <= truths[name] <= high
            low, high = fit.bias_interval()
            bias_covered += low <= fit.judge - truths[name] <= high
            total += 1
            ratios.append(fit.se / fit.experts_only_se)
            effective.append(fit.effective_n)
        test = equal_bias_test(fits)
        rejected += test.p_value is not None and test.p_value < 0.05
    return Figures(
        rounds=rounds,
        coverage=covered / total,
        bias_coverage=bias_covered / total,
        bias_test_rejections=rejected / rounds,
        width_ratio=float(np.median(ratios)),
        effective_n=float(np.median(effective)),
        labelled=design.labelled,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    design = Design()
    figures = run(rounds=args.rounds, seed=args.seed, design=design)
    print(
        f"{figures.rounds} rounds, {design.systems} systems x {design.cases} cases, "
        f"{design.labelled} labelled per system, {design.criteria} criteria per response, "
        f"judge agreement {design.agreement:.0%}"
    )
    print(f"coverage of the 95% corrected interval: {figures.coverage:.4f}")
    print(f"coverage of the 95% bias interval: {figures.bias_coverage:.4f}")
    alike = run(rounds=args.rounds, seed=args.seed + 2, design=Design(level_spread=0.0))
    print(
        "equal-bias test, the same bias for every system, rejections at 5%: "
        f"{alike.bias_test_rejections:.4f}"
    )
    print(
        f"corrected / experts-only interval width (median): {figures.width_ratio:.3f} "
        f"({1 - figures.width_ratio:.1%} narrower)"
    )
    print(
        f"effective sample size (median): {figures.effective_n:.1f} "
        f"from {figures.labelled} labelled responses"
    )
    print("by the judge's agreement (200 rounds each): width ratio, effective n, coverage")
    for agreement in (0.75, 0.85, 0.95):
        other = run(
            rounds=min(args.rounds, 200), seed=args.seed + 3, design=Design(agreement=agreement)
        )
        print(
            f"  {agreement:.0%}: {other.width_ratio:.3f}, {other.effective_n:.1f}, "
            f"{other.coverage:.4f}"
        )
    lenient = Design(level_spread=0.0, lenient_system=0, lenience=0.25)
    power = run(rounds=min(args.rounds, 200), seed=args.seed + 1, design=lenient)
    print(
        "equal-bias test, one system's judge lenient (+25% of unmet criteria read as met), "
        f"rejections at 5%: {power.bias_test_rejections:.4f}"
    )


if __name__ == "__main__":
    main()
