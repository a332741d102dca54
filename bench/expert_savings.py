"""Expert ratings the sequential gate saves against a fixed sample.

Synthetic rounds shaped like HeartBench's validation (296 cases x 4 systems, a 30% sample:
355 items of about 10 criteria, 3 raters each); the judge agrees with the experts'
majority at a true rate of 0.85, 0.80 or 0.75, item by item with some spread (criteria of
one response are correlated). For each, the median and 90th percentile of the items the
sequential rule used before deciding (it stops at the first decision; otherwise every item
is used), and the share of the fixed sample's ratings saved. Goal: at 0.85, at least half
saved.

    python bench/expert_savings.py [--rounds 2000] [--threshold 0.75]
"""

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._host import host_report  # noqa: E402
from leaderboard.stats.sequential import simulated_decisions  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--threshold", type=float, default=0.75)
    parser.add_argument("--responses", type=int, default=296 * 4)
    parser.add_argument("--fraction", type=float, default=0.3)
    parser.add_argument("--criteria", type=int, default=10)
    parser.add_argument("--raters", type=int, default=3)
    parser.add_argument("--spread", type=float, default=0.1, help="sd of items' agreement")
    args = parser.parse_args()
    print(host_report())
    fixed = round(args.responses * args.fraction)
    print(
        f"fixed sample: {fixed} items of {args.criteria} criteria x {args.raters} raters = "
        f"{fixed * args.raters:,} ratings (one expert's verdicts on one item); threshold "
        f"{args.threshold}, "
        f"alpha 0.05 per direction, {args.rounds} simulated rounds each"
    )
    for truth in (0.85, 0.80, 0.75):
        decision, used = simulated_decisions(
            true_agreement=truth,
            threshold=args.threshold,
            items=fixed,
            units_per_item=args.criteria,
            rounds=args.rounds,
            seed=20251,
            within_item_sd=args.spread,
        )
        median, p90 = np.median(used), np.percentile(used, 90)
        saved = 1 - median / fixed
        shares = {name: float(np.mean(decision == code)) for name, code in
                  (("pass", 1), ("fail", -1), ("continue", 0))}  # fmt: skip
        goal = f" (goal: >= 50%, {'met' if saved >= 0.5 else 'NOT met'})" if truth == 0.85 else ""
        print(
            f"true agreement {truth:.2f}: items used median {median:.0f}, p90 {p90:.0f} of "
            f"{fixed}; ratings saved at the median {100 * saved:.0f}%{goal}; decisions "
            + ", ".join(f"{name} {100 * share:.1f}%" for name, share in shares.items())
        )


if __name__ == "__main__":
    main()
