"""The gate's error rates, shown by simulation: for each rule, how often a judge whose
agreement is exactly the threshold is passed, how often a better judge is, and how many
items a decision takes.

Rounds like real ones:
- items drawn from HeartBench's responses (296 cases x 4 systems; each case's real number
  of criteria, 4 to 23), 266 items a round, scaled by the round's largest item;
- per criterion a true answer and three raters, each wrong at their own rate (5%, 10%,
  15%); the human verdict is their majority; the judge is right with a chance drawn per
  response, so the agreement of the criteria of one response is correlated with the
  intraclass correlation given (0, 0.1, 0.3); that chance is centred so that the judge
  agrees with the majority at the stated true agreement;
- items settle out of order: an item settles when its slowest rater is done, and raters
  take longer on larger rubrics and on responses the judge gets wrong;
- early closes: the coordinator closes the round as soon as the agreement over the items
  settled so far reaches the threshold (after at least 6 items);
- repeated rounds: one judge version at the threshold, evaluated on five complete rounds.

The rules, as the gate applies them:
- point: the pooled agreement reaches the threshold;
- lower_bound: the Wilson lower bound at the effective n (units over the design effect
  estimated from the responses' tallies), one-sided alpha / 2 at the first look and
  alpha / 2 / 2^(k - 1) at look k, reaches the threshold;
- both read only complete rounds (an early-closed round is refused) and pool a version's
  complete rounds, one look per round;
- sequential: the betting test on the settled prefix in hand-out order, its wealth
  carried across a version's rounds; any round may close at any time. Its false-pass
  figure counts a pass at any look, even one after a "fail" decision a coordinator ignored.

Power is for one complete round; the items are those a decision used (the sequential rule
stops at its decision, the fixed rules rate the whole round).

    python bench/gate_error_rates.py [--simulations 2000] [--threshold 0.75] [--alpha 0.05]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from leaderboard.stats.sequential import batch_crossings, batch_decisions  # noqa: E402

# HeartBench's public rubrics: criteria per case -> cases.
HEARTBENCH_SIZES = {4: 3, 5: 5, 6: 11, 7: 24, 8: 25, 9: 41, 10: 55, 11: 36, 12: 31, 13: 23,
                    14: 17, 15: 11, 16: 3, 17: 3, 18: 3, 19: 2, 20: 2, 23: 1}  # fmt: skip
SYSTEMS = 4
ITEMS = 266
RATER_ERRORS = (0.05, 0.10, 0.15)
ICCS = (0.0, 0.1, 0.3)
POWER_AT = (0.80, 0.85, 0.90)
REPEATS = 5
MIN_ITEMS_TO_CLOSE = 6
RULES = ("point", "lower_bound", "sequential")
KEYS = ("one_round", "early_close", "early_close_accepted", "five_rounds")


def pool_sizes() -> np.ndarray:
    sizes = [size for size, cases in HEARTBENCH_SIZES.items() for _ in range(cases)]
    return np.repeat(np.asarray(sizes), SYSTEMS)


def majority_right(errors=RATER_ERRORS) -> float:
    """The chance that the majority of three raters, wrong independently at their own rates,
    gives the true answer."""
    a, b, c = (1.0 - e for e in errors)
    return a * b * c + a * b * (1 - c) + a * (1 - b) * c + (1 - a) * b * c


@dataclass
class Rounds:
    agree: np.ndarray  # (simulations, items) agreeing units per item, hand-out order
    units: np.ndarray
    settle: np.ndarray  # when each item settles


def simulate_rounds(
    rng: np.random.Generator, *, simulations: int, agreement: float, icc: float
) -> Rounds:
    pool = pool_sizes()
    order = rng.permuted(np.tile(np.arange(pool.size), (simulations, 1)), axis=1)[:, :ITEMS]
    units = pool[order]
    right = majority_right()
    # The judge's chance of the true answer per response, so that its agreement with the
    # majority averages `agreement` and agreement within a response has correlation `icc`.
    mean = (agreement - (1.0 - right)) / (2.0 * right - 1.0)
    if icc > 0:
        variance = icc * agreement * (1.0 - agreement) / (2.0 * right - 1.0) ** 2
        spread = mean * (1.0 - mean) / variance - 1.0
        judge_right = rng.beta(mean * spread, (1.0 - mean) * spread, size=units.shape)
    else:
        judge_right = np.full(units.shape, mean)
    width = int(units.max())
    present = np.arange(width)[None, None, :] < units[..., None]
    truth = rng.random((*units.shape, width), dtype=np.float32) < 0.5
    votes = sum(
        truth ^ (rng.random((*units.shape, width), dtype=np.float32) < error)
        for error in RATER_ERRORS
    )
    majority = votes >= 2
    judge = truth ^ (rng.random((*units.shape, width), dtype=np.float32) >= judge_right[..., None])
    agree = ((judge == majority) & present).sum(axis=-1).astype(np.float64)
    # Settling: items are handed out in order at a steady pace; each rater's time grows
    # with the rubric and with how often the judge is wrong on it (a harder response).
    pace = units * (1.0 + 3.0 * (1.0 - judge_right))
    work = rng.exponential(1.0, size=(*units.shape, len(RATER_ERRORS))).max(axis=-1)
    settle = np.arange(ITEMS)[None, :] * 2.0 + pace * work
    return Rounds(agree, units.astype(np.float64), settle)


def _wilson_low(point: np.ndarray, n: np.ndarray, z: float) -> np.ndarray:
    z2 = z * z / n
    centre = (point + z2 / 2.0) / (1.0 + z2)
    half = z * np.sqrt(point * (1.0 - point) / n + z2 / (4.0 * n)) / (1.0 + z2)
    return centre - half


def lower_bound(agree: np.ndarray, units: np.ndarray, *, look: int, alpha: float) -> np.ndarray:
    """Per row: the Wilson lower bound of the pooled agreement at the effective n, the
    design effect taken from the responses' tallies (linearised ratio variance over the
    binomial one, at least 1), at look `look`'s one-sided level."""
    n = units.sum(axis=-1)
    k = (units > 0).sum(axis=-1)
    point = agree.sum(axis=-1) / n
    clustered = k / (k - 1) * ((agree - point[:, None] * units) ** 2).sum(axis=-1) / n**2
    binomial = np.maximum(point * (1.0 - point) / n, 1e-12)
    deff = np.maximum(1.0, clustered / binomial)
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0 / 2.0 ** (look - 1))
    return _wilson_low(point, n / deff, z)


def fixed_passes(rule: str, agree, units, *, threshold: float, look: int, alpha: float):
    if rule == "point":
        return agree.sum(axis=-1) / units.sum(axis=-1) >= threshold
    return lower_bound(agree, units, look=look, alpha=alpha) >= threshold


def early_close(rounds: Rounds, threshold: float) -> tuple[np.ndarray, ...]:
    """Per round: whether the coordinator closed it early (the agreement over the items
    settled so far reached the threshold, after at least MIN_ITEMS_TO_CLOSE, before the
    last item settled), the settled prefix in hand-out order when the round closed, and
    which items had settled by then."""
    simulations = rounds.agree.shape[0]
    by_time = np.argsort(rounds.settle, axis=1)
    rows = np.arange(simulations)[:, None]
    running = np.cumsum(rounds.agree[rows, by_time], axis=1) / np.cumsum(
        rounds.units[rows, by_time], axis=1
    )
    eligible = (running >= threshold) & (np.arange(ITEMS)[None, :] >= MIN_ITEMS_TO_CLOSE - 1)
    at = np.where(eligible.any(axis=1), eligible.argmax(axis=1), ITEMS - 1)
    closed = at < ITEMS - 1
    close_time = rounds.settle[np.arange(simulations), by_time[np.arange(simulations), at]]
    settled = rounds.settle <= close_time[:, None]
    prefix = np.where(settled.all(axis=1), ITEMS, np.argmin(settled, axis=1))
    return closed, prefix, settled


def _scale(rounds: Rounds) -> np.ndarray:
    return np.broadcast_to(rounds.units.max(axis=1, keepdims=True), rounds.units.shape)


def false_passes(rng, *, simulations: int, icc: float, threshold: float, alpha: float) -> dict:
    """Per rule, the share of simulations that pass a judge at exactly the threshold: on one
    complete round, on one round closed early by the coordinator, and on five rounds."""
    history = [
        simulate_rounds(rng, simulations=simulations, agreement=threshold, icc=icc)
        for _ in range(REPEATS)
    ]
    first = history[0]
    out: dict[str, dict[str, float]] = {rule: {} for rule in RULES}
    for rule in ("point", "lower_bound"):
        one = fixed_passes(rule, first.agree, first.units, threshold=threshold, look=1, alpha=alpha)
        out[rule]["one_round"] = float(np.mean(one))
        # An early-closed round is refused; a round the coordinator could not close early
        # ran to the end and is decided as a complete round.
        closed, _prefix, settled = early_close(first, threshold)
        out[rule]["early_close"] = float(np.mean(one & ~closed))
        # Were an early-closed round decided on the items settled when it closed:
        on_settled = fixed_passes(
            rule, first.agree * settled, first.units * settled,
            threshold=threshold, look=1, alpha=alpha,
        )  # fmt: skip
        out[rule]["early_close_accepted"] = float(np.mean(np.where(closed, on_settled, one)))
        passed = np.zeros(simulations, dtype=bool)
        for look in range(1, REPEATS + 1):
            agree = np.concatenate([r.agree for r in history[:look]], axis=1)
            units = np.concatenate([r.units for r in history[:look]], axis=1)
            passed |= fixed_passes(rule, agree, units, threshold=threshold, look=look, alpha=alpha)
        out[rule]["five_rounds"] = float(np.mean(passed))
    first_pass, _fail = batch_crossings(
        first.agree, first.units, _scale(first), threshold=threshold, alpha=alpha
    )
    out["sequential"]["one_round"] = float(np.mean(first_pass < ITEMS))
    _closed, prefix, _settled = early_close(first, threshold)
    out["sequential"]["early_close"] = float(np.mean(first_pass < prefix))
    out["sequential"]["early_close_accepted"] = out["sequential"]["early_close"]
    agree = np.concatenate([r.agree for r in history], axis=1)
    units = np.concatenate([r.units for r in history], axis=1)
    scale = np.concatenate([_scale(r) for r in history], axis=1)
    first_pass, _fail = batch_crossings(agree, units, scale, threshold=threshold, alpha=alpha)
    out["sequential"]["five_rounds"] = float(np.mean(first_pass < agree.shape[1]))
    return out


def power(rng, *, simulations: int, icc: float, agreement: float, threshold: float, alpha: float):
    """Per rule on one complete round at `agreement`: (share passed, median items, p90)."""
    rounds = simulate_rounds(rng, simulations=simulations, agreement=agreement, icc=icc)
    out = {}
    for rule in ("point", "lower_bound"):
        passed = fixed_passes(
            rule, rounds.agree, rounds.units, threshold=threshold, look=1, alpha=alpha
        )
        out[rule] = (float(np.mean(passed)), ITEMS, ITEMS)
    decision, used = batch_decisions(
        rounds.agree, rounds.units, _scale(rounds), threshold=threshold, alpha=alpha
    )
    out["sequential"] = (
        float(np.mean(decision == 1)),
        int(np.median(used)),
        int(np.percentile(used, 90)),
    )
    return out


def error_rates(*, simulations: int, threshold: float, alpha: float, seed: int) -> list[dict]:
    """One row per ICC and rule."""
    rng = np.random.default_rng(seed)
    rows = []
    for icc in ICCS:
        wrong = false_passes(
            rng, simulations=simulations, icc=icc, threshold=threshold, alpha=alpha
        )
        good = {
            at: power(
                rng,
                simulations=simulations,
                icc=icc,
                agreement=at,
                threshold=threshold,
                alpha=alpha,
            )
            for at in POWER_AT
        }
        for rule in RULES:
            rows.append(
                {
                    "icc": icc,
                    "rule": rule,
                    **wrong[rule],
                    "power": {at: good[at][rule] for at in POWER_AT},
                }
            )
    return rows


def table(rows: list[dict]) -> str:
    header = (
        "| ICC | rule | false pass, one round | early close | (if early closes were "
        "accepted) | five rounds | "
        + " | ".join(f"pass at {at:.2f} (items median/p90)" for at in POWER_AT)
        + " |"
    )
    lines = [header, "|" + "---|" * (6 + len(POWER_AT))]
    for row in rows:
        cells = [
            f"{row['icc']:g}",
            f"`{row['rule']}`",
            *(f"{100 * row[key]:.1f}%" for key in KEYS),
            *(
                f"{100 * share:.1f}% ({median}/{p90})"
                for share, median, p90 in (row["power"][at] for at in POWER_AT)
            ),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--threshold", type=float, default=0.75)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=20251)
    args = parser.parse_args(argv)
    print(
        f"{args.simulations} simulated rounds per cell, {ITEMS} items a round from HeartBench's "
        f"rubric sizes, raters wrong at {', '.join(f'{e:.0%}' for e in RATER_ERRORS)}, "
        f"threshold {args.threshold}, alpha {args.alpha}"
    )
    rows = error_rates(
        simulations=args.simulations, threshold=args.threshold, alpha=args.alpha, seed=args.seed
    )
    print(table(rows))


if __name__ == "__main__":
    main()
