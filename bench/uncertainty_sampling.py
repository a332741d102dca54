"""Rounds sampled more where the judge is unsure, simulated: the bias of the agreement
share weighted by inverse chances (the Hájek share of leaderboard.stats.weighted_share),
the bias of the plain share on the same draws (why the weights are needed), and the mean
interval width against uniform sampling of the same expected size.

One population is drawn once from `seed`: `cases` cases answered by `systems` systems,
`criteria` criteria per response. Each response has a hardness h ~ Beta(0.6, 3); the judge
agrees with the experts on a criterion with probability 1 - `lapse` * h, and its ensemble's
uncertainty is u = clip(h / 2 + noise, 0, 0.5) (a minority share). Every round then draws
the responses by Poisson sampling (annotation.review_sampling), with chances proportional
to the floor plus u, or all equal, both adding up to `fraction` of the responses.

    .venv/bin/python -m bench.uncertainty_sampling [--rounds 1000] [--seed 0] [--floor 1.0]

It prints its figures; it asserts nothing (tests/leaderboard/test_uncertainty_sampling_bias.py
checks the bias).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

import numpy as np

from annotation.review_sampling import FLOOR_SHARE, poisson_sample, probabilities_by_size
from leaderboard.stats.weighted_share import weighted_share_interval


@dataclass(frozen=True)
class Design:
    cases: int = 296
    systems: int = 2
    criteria: int = 10
    fraction: float = 0.3
    lapse: float = 0.8


@dataclass(frozen=True)
class Population:
    agree: np.ndarray  # responses x criteria: the judge agrees with the experts
    uncertainty: dict[int, float]
    case_of: np.ndarray

    @property
    def true_share(self) -> float:
        return float(self.agree.mean())


def population(design: Design, seed: int) -> Population:
    rng = np.random.default_rng(seed)
    n = design.cases * design.systems
    hardness = rng.beta(0.6, 3, n)
    agree = rng.random((n, design.criteria)) < (1 - design.lapse * hardness)[:, None]
    u = np.clip(hardness / 2 + rng.normal(0, 0.05, n), 0, 0.5)
    return Population(
        agree=agree,
        uncertainty={i: float(u[i]) for i in range(n)},
        case_of=np.arange(n) // design.systems,
    )


def one_round(people: Population, chances: dict[int, float], seed: int) -> dict | None:
    drawn = np.array(poisson_sample(chances, seed=seed), dtype=int)
    if drawn.size < 2:
        return None
    k = people.agree.shape[1]
    agree = people.agree[drawn].reshape(-1)
    weights = np.repeat([1 / chances[int(i)] for i in drawn], k)
    clusters = np.repeat(people.case_of[drawn], k)
    share = weighted_share_interval(agree, weights, clusters)
    if share.point is None:
        return None
    return {
        "weighted": share.point,
        "plain": float(agree.mean()),
        "width": share.high - share.low,
        "covers": share.low <= people.true_share <= share.high,
        "size": int(drawn.size),
    }


def run(design: Design, *, rounds: int, seed: int, floor_share: float = FLOOR_SHARE) -> dict:
    people = population(design, seed)
    by_uncertainty = probabilities_by_size(
        people.uncertainty, fraction=design.fraction, floor_share=floor_share
    )
    uniform = dict.fromkeys(people.uncertainty, design.fraction)
    out = {"true_share": people.true_share}
    for name, chances in (("uncertainty", by_uncertainty), ("uniform", uniform)):
        results = [one_round(people, chances, seed * 100_003 + r) for r in range(rounds)]
        results = [r for r in results if r is not None]
        errors = np.array([r["weighted"] for r in results]) - people.true_share
        plain = np.array([r["plain"] for r in results]) - people.true_share
        out[name] = {
            "rounds": len(results),
            "bias": float(errors.mean()),
            "bias_se": float(errors.std(ddof=1) / math.sqrt(len(results))),
            "plain_bias": float(plain.mean()),
            "rmse": float(np.sqrt((errors**2).mean())),
            "mean_width": float(np.mean([r["width"] for r in results])),
            "coverage": float(np.mean([r["covers"] for r in results])),
            "mean_size": float(np.mean([r["size"] for r in results])),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--floor", type=float, default=FLOOR_SHARE, help="the floor's share")
    args = parser.parse_args()
    result = run(Design(), rounds=args.rounds, seed=args.seed, floor_share=args.floor)
    print(f"true agreement share: {result['true_share']:.4f}; floor {args.floor} x mean u")
    for name in ("uncertainty", "uniform"):
        r = result[name]
        print(
            f"{name:>11}: bias {r['bias']:+.4f} (± {2 * r['bias_se']:.4f}), plain share's bias "
            f"{r['plain_bias']:+.4f}, RMSE {r['rmse']:.4f}, mean 95% width {r['mean_width']:.4f}, "
            f"coverage {r['coverage']:.3f}, mean responses {r['mean_size']:.1f} "
            f"({r['rounds']} rounds)"
        )
    ratio = result["uncertainty"]["mean_width"] / result["uniform"]["mean_width"]
    print(f"width, uncertainty / uniform at the same expected size: {ratio:.3f}")
    for floor in (0.1, 0.5, 1.0, 2.0):
        other = run(Design(), rounds=args.rounds, seed=args.seed, floor_share=floor)
        drawn = other["uncertainty"]
        print(
            f"  floor {floor:>3} x mean u: width ratio "
            f"{other['uncertainty']['mean_width'] / other['uniform']['mean_width']:.3f}, "
            f"bias {drawn['bias']:+.4f} (± {2 * drawn['bias_se']:.4f})"
        )


if __name__ == "__main__":
    main()
