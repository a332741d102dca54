"""The sequential gate on rounds drawn with unequal chances, simulated: how often it passes
or fails a judge exactly at the threshold (weighted by the items' chance ratios, and not),
and the median items it needs to pass a clearly good judge, against uniform sampling of the
same number of items.

Responses are of five kinds (leaderboard.stats.sequential_weighted.Design): each kind's
share of the population, its chance of being drawn, and its agreement, falling with its
chance by `tilt` (the judge agrees less where it is unsure, and those are drawn more).
Two designs: chances spread over [0.1, 1], and the uncertainty design's chances at a floor
(annotation.review_sampling.probabilities_by_size on the kinds' uncertainties, 30% drawn).

    .venv/bin/python -m bench.sequential_weighted [--rounds 2000] [--seed 0] [--items 1000]

It prints its figures; it asserts nothing (tests/leaderboard/test_stats_sequential_weighted.py
checks the level and the power).
"""

from __future__ import annotations

import argparse

import numpy as np

from annotation.review_sampling import FLOOR_SHARE, probabilities_by_size
from leaderboard.stats.sequential_weighted import Design, simulated_decisions

SHARES = (0.40, 0.25, 0.15, 0.12, 0.08)
# Each kind's uncertainty (a minority share, as an ensemble's).
UNCERTAINTY = (0.0, 0.1, 0.2, 0.3, 0.5)


def floor_design(floor_share: float, *, fraction: float = 0.3, size: int = 1000) -> Design:
    """The kinds' chances as the uncertainty design gives them at `floor_share`."""
    counts = np.round(np.asarray(SHARES) * size).astype(int)
    sizes, kind_of = {}, {}
    for kind, count in enumerate(counts):
        for _ in range(count):
            kind_of[len(sizes)] = kind
            sizes[len(sizes)] = UNCERTAINTY[kind]
    chances = probabilities_by_size(sizes, fraction=fraction, floor_share=floor_share)
    by_kind = {kind_of[pk]: chance for pk, chance in chances.items()}
    return Design(shares=SHARES, chances=tuple(by_kind[k] for k in range(len(SHARES))))


def report(name: str, design: Design, *, rounds: int, seed: int, items: int) -> None:
    print(f"{name}: chances {', '.join(f'{c:.3f}' for c in design.chances)}")
    for weighted in (True, False):
        decision, _used = simulated_decisions(
            design,
            truth=0.75,
            threshold=0.75,
            items=items,
            rounds=rounds,
            seed=seed,
            weighted=weighted,
        )
        print(
            f"  at the threshold (0.75), {'weighted' if weighted else 'unweighted'}: "
            f"wrongly passes {np.mean(decision == 1):.3f}, wrongly fails "
            f"{np.mean(decision == -1):.3f} ({rounds} rounds of {items} items)"
        )
    medians = {}
    for uniform in (False, True):
        decision, used = simulated_decisions(
            design,
            truth=0.9,
            threshold=0.75,
            items=items,
            rounds=rounds,
            seed=seed + 1,
            uniform=uniform,
        )
        medians[uniform] = float(np.median(used))
        print(
            f"  at 0.9, {'uniform sampling' if uniform else 'weighted'}: passes "
            f"{np.mean(decision == 1):.3f}, median items {medians[uniform]:g}, p90 "
            f"{np.percentile(used, 90):g}"
        )
    print(f"  items, weighted / uniform: {medians[False] / medians[True]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--items", type=int, default=1000)
    args = parser.parse_args()
    options = {"rounds": args.rounds, "seed": args.seed, "items": args.items}
    report("chances in [0.1, 1]", Design(), **options)
    for floor in (FLOOR_SHARE, 0.1):
        report(f"uncertainty design, floor {floor:g} x mean u", floor_design(floor), **options)


if __name__ == "__main__":
    main()
