"""Has a judge version drifted? An anytime-valid test on its agreement with the experts on
a fixed set of anchors, re-judged in every run (pure, no Django).

The anchors are expert-labelled responses (each with its criteria's majority verdicts).
Every run of the version judges them again; run r gives, per anchor response a, the units
agreeing with the experts, agree[r][a], out of units[a]. Without drift, every run draws
its verdicts from the same judge, so the anchor agreement p (units agreeing over units,
pooled over the anchors) is the same in every run. A provider that silently swaps the
model behind a name changes p.

Two stages, each with the gate's betting machinery (leaderboard.stats.sequential):

1. Reference. The version's first `reference_runs` runs give the confidence sequence for
   p at level alpha / 4 per side (the gate's pass and fail tests on every grid value of p,
   the anchors as items): p lies in [low, high] except with probability alpha / 2.
2. Later runs. Their anchors, run after run (items in the anchor set's fixed random order),
   feed two tests by betting: "agreement below `low`" (the gate's fail test at threshold
   low) and "agreement above `high`" (its pass test at threshold high), each at level
   alpha / 4. Each wealth is a nonnegative supermartingale while p stays in [low, high],
   so by Ville's inequality it ever reaches 4 / alpha with probability at most alpha / 4,
   however many runs follow.

Without drift a flag is therefore raised with probability at most alpha / 2 + alpha / 4 +
alpha / 4 = alpha, at any time (union bound). The anchors are treated as the gate treats
the items of a round: draws from a population (here the anchor set) in a random order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.stats.sequential import DEFAULT_ALPHA, _log_wealth, _prior, sequential_history

DEFAULT_REFERENCE_RUNS = 2
DRIFTED, STEADY, NO_REFERENCE = "drifted", "steady", "no_reference"


@dataclass(frozen=True)
class DriftTest:
    state: str  # DRIFTED, STEADY, or NO_REFERENCE while the reference runs are missing
    alpha: float
    reference_runs: int
    reference_low: float | None  # the reference interval for the anchor agreement
    reference_high: float | None
    runs_tested: int  # later runs whose anchors fed the test
    flagged_at_run: int | None  # the index (0-based, among all runs) of the flagging run
    direction: str  # "lower", "higher" or "" (no flag)
    e_value: float  # the larger of the two wealths after the last run (or at the flag)
    level: float  # the wealth that flags: 4 / alpha
    path: tuple[float, ...]  # per later run: the larger wealth after it

    def as_dict(self) -> dict:
        return {
            "rule": "betting e-process (aGRAPA) against the reference interval",
            "state": self.state,
            "alpha": self.alpha,
            "reference_runs": self.reference_runs,
            "reference_interval": None
            if self.reference_low is None
            else [self.reference_low, self.reference_high],
            "runs_tested": self.runs_tested,
            "flagged_at_run": self.flagged_at_run,
            "direction": self.direction or None,
            "e_value": self.e_value,
            "level": self.level,
        }


def _checked_runs(runs: Sequence[Sequence[int]], units: Sequence[int]) -> np.ndarray:
    sizes = np.asarray(units, dtype=np.float64)
    if sizes.ndim != 1 or sizes.size == 0 or (sizes <= 0).any():
        raise ValueError("one positive unit count per anchor response")
    if any(len(run) != sizes.size for run in runs):
        raise ValueError(f"per run, one agreeing count per anchor ({sizes.size})")
    agree = np.asarray(runs, dtype=np.float64).reshape(len(runs), sizes.size)
    if (agree < 0).any() or (agree > sizes).any():
        raise ValueError("per run, one agreeing count per anchor, 0 <= agree <= units")
    return agree


def drift_test(
    runs: Sequence[Sequence[int]],
    units: Sequence[int],
    *,
    alpha: float = DEFAULT_ALPHA,
    reference_runs: int = DEFAULT_REFERENCE_RUNS,
) -> DriftTest:
    """The drift test on a version's runs, oldest first: `runs[r][a]` units of anchor a
    agree with the experts in run r, of `units[a]`."""
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha must lie strictly between 0 and 0.5, got {alpha!r}")
    if reference_runs < 1:
        raise ValueError("at least one reference run")
    agree = _checked_runs(runs, units)
    sizes = np.asarray(units, dtype=np.float64)
    level = 4.0 / alpha
    if agree.shape[0] < reference_runs:
        return DriftTest(
            NO_REFERENCE, alpha, reference_runs, None, None, 0, None, "", 1.0, level, ()
        )
    low, high = reference_interval(agree[:reference_runs], sizes, alpha=alpha)
    later = agree[reference_runs:]
    if later.shape[0] == 0:
        return DriftTest(STEADY, alpha, reference_runs, low, high, 0, None, "", 1.0, level, ())
    below, above = _wealth_paths(later.reshape(1, -1), sizes, low, high, later.shape[0])
    per_run = np.maximum(below, above)[0]
    crossed = np.flatnonzero(per_run >= math.log(level))
    if crossed.size:
        at = int(crossed[0])
        direction = "lower" if below[0, at] >= math.log(level) else "higher"
        return DriftTest(
            DRIFTED,
            alpha,
            reference_runs,
            low,
            high,
            at + 1,
            reference_runs + at,
            direction,
            _exp(per_run[at]),
            level,
            tuple(_exp(v) for v in per_run[: at + 1]),
        )
    return DriftTest(
        STEADY,
        alpha,
        reference_runs,
        low,
        high,
        int(later.shape[0]),
        None,
        "",
        _exp(per_run[-1]),
        level,
        tuple(_exp(v) for v in per_run),
    )


def _exp(value: float) -> float:
    return float(math.exp(min(float(value), 700.0)))


def reference_interval(
    reference: np.ndarray, sizes: np.ndarray, *, alpha: float
) -> tuple[float, float]:
    """The gate's confidence sequence for the anchor agreement from the reference runs'
    anchors (as items), each side at alpha / 4: it covers with probability 1 - alpha / 2."""
    items = [
        list(zip(row.tolist(), sizes.tolist(), strict=True)) for row in np.atleast_2d(reference)
    ]
    gate = sequential_history(
        [[pair for run in items for pair in run]],
        threshold=0.5,
        alpha=alpha / 4.0,
        max_units=[int(sizes.max())],
    )
    return float(gate.cs_low), float(gate.cs_high)


def _wealth_paths(
    later: np.ndarray, sizes: np.ndarray, low, high, runs: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per row (a history of later runs, anchors of one run after another): the log wealth
    of "below low" and of "above high" after each run."""
    rows = later.shape[0]
    units = np.tile(sizes, runs)[None, :]
    scale = float(sizes.max())
    low = np.broadcast_to(np.asarray(low, dtype=np.float64), (rows,))
    high = np.broadcast_to(np.asarray(high, dtype=np.float64), (rows,))
    # The fail test at `low` bets on the shortfall; the pass test at `high` on the excess.
    # A bound at 0 or 1 can never be crossed that way: its test keeps its wealth.
    safe_low = np.clip(low, 1e-6, 1 - 1e-6)
    safe_high = np.clip(high, 1e-6, 1 - 1e-6)
    short = (safe_low[:, None] * units - later) / scale
    excess = (later - safe_high[:, None] * units) / scale
    log_below = _log_wealth(short, 1.0 - safe_low, _prior(safe_low, scale))[0]
    log_above = _log_wealth(excess, safe_high, _prior(safe_high, scale))[0]
    log_below = np.where((low <= 0.0)[:, None], 0.0, log_below)
    log_above = np.where((high >= 1.0)[:, None], 0.0, log_above)
    at_run_end = np.arange(1, runs + 1) * sizes.size - 1
    # A wealth that once reached the level has flagged: the path keeps its running maximum.
    return (
        np.maximum.accumulate(log_below[:, at_run_end], axis=-1),
        np.maximum.accumulate(log_above[:, at_run_end], axis=-1),
    )


def simulated_runs_to_flag(
    *,
    sizes: Sequence[int],
    agreement: float,
    drifted: float,
    reference_runs: int = DEFAULT_REFERENCE_RUNS,
    later_runs: int,
    simulations: int,
    seed: int,
    alpha: float = DEFAULT_ALPHA,
    icc: float = 0.0,
) -> np.ndarray:
    """Per simulated history: the number of later runs after which the test flagged
    (`later_runs + 1` when it never did). The reference runs agree at `agreement`, the later
    ones at `drifted` (equal to `agreement`: no drift); anchors of `sizes` units, criteria
    of one response correlated with `icc`."""
    from leaderboard.stats.sequential import simulated_agreement

    rng = np.random.default_rng(seed)
    anchors = np.asarray(sizes, dtype=np.float64)
    units_ref = np.broadcast_to(
        np.tile(anchors, reference_runs), (simulations, anchors.size * reference_runs)
    )
    units_later = np.broadcast_to(
        np.tile(anchors, later_runs), (simulations, anchors.size * later_runs)
    )
    ref = simulated_agreement(rng, np.array(units_ref), mean=agreement, icc=icc)
    later = simulated_agreement(rng, np.array(units_later), mean=drifted, icc=icc)
    lows, highs = np.empty(simulations), np.empty(simulations)
    for row in range(simulations):
        lows[row], highs[row] = reference_interval(
            ref[row].reshape(reference_runs, anchors.size), anchors, alpha=alpha
        )
    below, above = _wealth_paths(later, anchors, lows, highs, later_runs)
    flagged = np.maximum(below, above) >= math.log(4.0 / alpha)
    return np.where(flagged.any(axis=-1), flagged.argmax(axis=-1) + 1, later_runs + 1)


def planned_runs(
    *,
    sizes: Sequence[int],
    agreement: float,
    drift: float,
    power: float = 0.8,
    reference_runs: int = DEFAULT_REFERENCE_RUNS,
    alpha: float = DEFAULT_ALPHA,
    icc: float = 0.0,
    horizon: int = 50,
    simulations: int = 400,
    seed: int = 0,
) -> int | None:
    """The later runs within which the test flags a drift of the anchor agreement from
    `agreement` by `drift` (negative: the judge got worse) in `power` of simulated
    histories; None when it does not within `horizon` runs."""
    drifted = agreement + drift
    if not 0.0 <= drifted <= 1.0:
        raise ValueError("the drifted agreement must lie between 0 and 1")
    at = simulated_runs_to_flag(
        sizes=sizes,
        agreement=agreement,
        drifted=drifted,
        reference_runs=reference_runs,
        later_runs=horizon,
        simulations=simulations,
        seed=seed,
        alpha=alpha,
        icc=icc,
    )
    runs = int(np.quantile(at, power, method="higher"))
    return None if runs > horizon else runs
