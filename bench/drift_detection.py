"""The drift test on anchors, shown by simulation: how often it flags a judge that did not
drift (at most alpha), and how many later runs it needs to flag a drift of a given size.

Anchors like the default set: 30 responses with HeartBench-like rubrics (4 to 15
criteria each, seeded draw). The reference runs and the later runs agree with the experts
at the stated anchor agreement; criteria of one response are correlated with the given
intraclass correlation.

    python bench/drift_detection.py [--simulations 2000] [--agreement 0.8] [--drift -0.2]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from leaderboard.stats.drift import planned_runs, simulated_runs_to_flag  # noqa: E402

ANCHORS = 30


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--agreement", type=float, default=0.8)
    parser.add_argument("--drift", type=float, default=-0.2)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--icc", type=float, default=0.1)
    parser.add_argument("--runs", type=int, default=30, help="later runs simulated")
    parser.add_argument("--reference-runs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    sizes = np.random.default_rng(args.seed).integers(4, 16, size=ANCHORS).tolist()
    common = {
        "sizes": sizes,
        "agreement": args.agreement,
        "reference_runs": args.reference_runs,
        "later_runs": args.runs,
        "simulations": args.simulations,
        "alpha": args.alpha,
        "icc": args.icc,
    }
    steady = simulated_runs_to_flag(drifted=args.agreement, seed=args.seed, **common)
    rate = float(np.mean(steady <= args.runs))
    error = 3 * (args.alpha * (1 - args.alpha) / args.simulations) ** 0.5
    print(
        f"anchors: {ANCHORS} responses, {sum(sizes)} units; reference runs: "
        f"{args.reference_runs}; alpha {args.alpha}; icc {args.icc}"
    )
    print(
        f"no drift (agreement {args.agreement:.2f}): flagged within {args.runs} later runs "
        f"in {rate:.4f} of {args.simulations} histories (alpha {args.alpha} + 3 se "
        f"{error:.4f}: {'within' if rate <= args.alpha + error else 'ABOVE'})"
    )
    drifted = simulated_runs_to_flag(
        drifted=args.agreement + args.drift, seed=args.seed + 1, **common
    )
    found = drifted[drifted <= args.runs]
    share = found.size / args.simulations
    print(
        f"drift {args.drift:+.2f} (to {args.agreement + args.drift:.2f}): flagged in "
        f"{share:.3f} of histories within {args.runs} later runs"
        + (
            f"; runs to detection median {int(np.median(found))}, 90th percentile "
            f"{int(np.quantile(found, 0.9, method='higher'))}"
            if found.size
            else ""
        )
    )
    for power in (0.8, 0.9):
        planned = planned_runs(
            sizes=sizes,
            agreement=args.agreement,
            drift=args.drift,
            power=power,
            reference_runs=args.reference_runs,
            alpha=args.alpha,
            icc=args.icc,
            horizon=args.runs,
        )
        print(
            f"planned later runs for power {power:.0%}: "
            + (str(planned) if planned is not None else f"not within {args.runs}")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
