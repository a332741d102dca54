"""Vectorised scoring of a whole judge run at once, and the bootstrap interval of the overall
score. Same rules as `score_case` and `score_system` (see the package docstring), computed on
numpy arrays so that a full-scale run (1,126 cases x 14 systems, ~160,000 verdicts) scores in
milliseconds. `score_system` stays the readable reference; tests hold the two equal.

The run is a matrix: one row per judged case (one system's response to one case), one column
per ability. `scores[i, d]` is S_d of row i, `present[i, d]` says whether row i has a
scorable criterion of ability d at all (an absent ability is not a 0).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from judging.scoring.inputs import HARD, NORMAL, Profile
from judging.scoring.reasons import (
    NO_CASES,
    NO_SCENE_CASES,
    NO_SCENE_SCORABLE,
    NO_SCORABLE_CASE,
    NO_SIDE_CASES,
    NO_SIDE_SCORABLE,
    TOO_FEW_CASES,
    reason,
)
from judging.scoring.system import relative_decline
from judging.scoring.values import Value

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20251


@dataclass(frozen=True)
class AbilityMatrix:
    scores: np.ndarray  # float, rows x abilities; 0 where absent
    present: np.ndarray  # bool, rows x abilities
    catastrophe: np.ndarray  # bool, one per row: the profile's catastrophic rule fired


def ability_matrix(
    *,
    row: np.ndarray,
    ability: np.ndarray,
    weight: np.ndarray,
    weighted: np.ndarray,
    catastrophic: np.ndarray,
    hit: np.ndarray,
    n_rows: int,
    n_abilities: int,
    profile: Profile | str,
) -> AbilityMatrix:
    """S_d for every (row, ability) from one entry per verdict.

    Each argument but the sizes and the profile holds one value per verdict: the row (judged
    case) and ability column it belongs to, the criterion's weight (any number where
    `weighted` is False), whether it carries a weight, whether it is catastrophic, and the
    judge's hit.
    """
    profile = Profile(profile)
    row = np.asarray(row, dtype=np.int64)
    ability = np.asarray(ability, dtype=np.int64)
    weighted = np.asarray(weighted, dtype=bool)
    catastrophic = np.asarray(catastrophic, dtype=bool)
    hit = np.asarray(hit, dtype=bool)
    weight = np.where(weighted, np.asarray(weight, dtype=np.float64), 0.0)
    if row.size and (row.min() < 0 or row.max() >= n_rows):
        raise ValueError("a verdict points at a row outside the matrix")

    scorable = weighted & ~catastrophic
    cell = row * n_abilities + np.where(scorable, ability, 0)
    size = n_rows * n_abilities
    counted = np.where(scorable, weight, 0.0)
    # Weights are integers, so these float sums are exact.
    raw = np.bincount(cell, weights=np.where(hit, counted, 0.0), minlength=size)
    low = np.bincount(cell, weights=np.minimum(counted, 0.0), minlength=size)
    high = np.bincount(cell, weights=np.maximum(counted, 0.0), minlength=size)
    present = np.bincount(cell, weights=scorable, minlength=size) > 0

    span = high - low
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = np.where(span > 0, 100.0 * (np.log(raw - low + 1) / np.log(span + 1)), 0.0)
    scores = np.where(present, scores, 0.0).reshape(n_rows, n_abilities)

    fires = catastrophic & hit
    if profile is Profile.HEARTBENCH_CODE:
        fires &= weighted & (weight > 0)
    catastrophe = np.bincount(row[fires], minlength=n_rows) > 0
    scores[catastrophe] = 0.0
    return AbilityMatrix(
        scores=scores, present=present.reshape(n_rows, n_abilities), catastrophe=catastrophe
    )


def _ability_means(scores: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts = present.sum(axis=0)
    sums = np.where(present, scores, 0.0).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan), counts


def _macro(means: np.ndarray, empty_reason: str) -> Value:
    defined = means[~np.isnan(means)]
    return Value.of(float(defined.mean())) if defined.size else Value.undefined(empty_reason)


@lru_cache(maxsize=4)
def resample_counts(n_rows: int, n_resamples: int, seed: int) -> np.ndarray:
    """How often each row is drawn in each resample (resamples x rows), drawing n_rows rows
    with replacement per resample. Cached because every system of a run has the same number
    of cases and the same seed; read-only so the cache cannot be altered."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, n_rows, size=(n_resamples, n_rows))
    picks += np.arange(n_resamples)[:, None] * n_rows
    counts = np.bincount(picks.reshape(-1), minlength=n_resamples * n_rows)
    counts = counts.reshape(n_resamples, n_rows).astype(np.float64)
    counts.flags.writeable = False
    return counts


@dataclass(frozen=True)
class OverallInterval:
    low: float | None
    high: float | None
    reason: str | None
    resamples: int
    seed: int
    confidence: float


def overall_bootstrap(
    scores: np.ndarray,
    present: np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> OverallInterval:
    """Percentile interval of the overall score, resampling cases with replacement.

    Each resample recomputes every ability mean over the drawn cases (a case drawn twice
    counts twice) and their macro average; an ability none of the drawn cases contains is
    left out of that resample's average, as it would be from the score of such a data set.
    """
    (interval,) = overall_bootstraps(
        [(scores, present)], n_resamples=n_resamples, seed=seed, confidence=confidence
    )
    return interval


def overall_bootstraps(
    blocks: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> list[OverallInterval]:
    """`overall_bootstrap` of several (scores, present) blocks, one per system, at once.

    Blocks with the same number of rows share the same resamples, so their columns are
    stacked and multiplied by the resample matrix in a single product: a run's 14 systems
    cost about one system's read of that matrix instead of 14.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    if isinstance(n_resamples, bool) or int(n_resamples) != n_resamples or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive whole number, got {n_resamples!r}")

    def interval(low: float | None, high: float | None, reason: str | None) -> OverallInterval:
        return OverallInterval(low, high, reason, int(n_resamples), int(seed), confidence)

    results: list[OverallInterval | None] = [None] * len(blocks)
    same_size: dict[int, list[int]] = {}
    for index, (scores, _present) in enumerate(blocks):
        if scores.shape[0] < 2:
            results[index] = interval(None, None, TOO_FEW_CASES)
        else:
            same_size.setdefault(scores.shape[0], []).append(index)
    tail = (1.0 - confidence) / 2.0 * 100.0
    for n_rows, members in same_size.items():
        draws = resample_counts(n_rows, int(n_resamples), int(seed))
        # Each block contributes its score sums then its counts: the resample matrix is read
        # once for all of them.
        stacked = np.hstack(
            [
                part
                for scores, present in (blocks[i] for i in members)
                for part in (np.where(present, scores, 0.0), present.astype(np.float64))
            ]
        )
        product = draws @ stacked
        start = 0
        for index in members:
            width = blocks[index][0].shape[1]
            sums = product[:, start : start + width]
            counts = product[:, start + width : start + 2 * width]
            start += 2 * width
            with np.errstate(divide="ignore", invalid="ignore"):
                means = np.where(counts > 0, sums / np.maximum(counts, 1.0), np.nan)
            defined = ~np.isnan(means)
            per_resample = defined.sum(axis=1)
            usable = per_resample > 0
            if not usable.any():
                results[index] = interval(None, None, NO_SCORABLE_CASE)
                continue
            overall = np.where(defined, means, 0.0).sum(axis=1)[usable] / per_resample[usable]
            low, high = np.percentile(overall, [tail, 100.0 - tail])
            results[index] = interval(float(low), float(high), None)
    return results


@dataclass(frozen=True)
class MatrixSummary:
    """What the leaderboard shows for one system, from its rows of the matrix."""

    overall: Value
    interval: OverallInterval
    normal: Value
    hard: Value
    relative_decline: Value
    abilities: dict[str, float]
    ability_case_counts: dict[str, int]
    categories: dict[str, float]
    scenes: dict[str, Value]
    scene_case_counts: dict[str, int]
    cases_scored: int


def _subset(scores, present, selected: np.ndarray, no_cases: str, none_scorable: str) -> Value:
    if not selected.any():
        return Value.undefined(no_cases)
    means, _ = _ability_means(scores[selected], present[selected])
    return _macro(means, none_scorable)


def summarise(
    scores: np.ndarray,
    present: np.ndarray,
    *,
    abilities: Sequence[str],
    categories: Sequence[str],
    difficulty: Sequence[str],
    scene: Sequence[str],
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    interval: OverallInterval | None = None,
) -> MatrixSummary:
    """One system's scores from its rows: `abilities` and `categories` name the columns
    (the category of each ability column), `difficulty` and `scene` describe the rows.
    `interval`, when given, is this block's `overall_bootstraps` result, computed together
    with other systems'; otherwise the bootstrap runs here."""
    difficulty = np.asarray(difficulty, dtype=object)
    scene = np.asarray(scene, dtype=object)
    means, counts = _ability_means(scores, present)
    overall = _macro(
        means,
        NO_CASES if not scores.shape[0] else NO_SCORABLE_CASE,
    )
    ability_scores = {label: float(means[i]) for i, label in enumerate(abilities) if counts[i] > 0}
    grouped: dict[str, list[float]] = {}
    for i, category in enumerate(categories):
        if counts[i] > 0:
            grouped.setdefault(category, []).append(float(means[i]))
    normal = _subset(
        scores, present, difficulty == NORMAL, NO_SIDE_CASES[NORMAL], NO_SIDE_SCORABLE[NORMAL]
    )
    hard = _subset(scores, present, difficulty == HARD, NO_SIDE_CASES[HARD], NO_SIDE_SCORABLE[HARD])
    scenes = {
        name: _subset(
            scores,
            present,
            scene == name,
            reason(NO_SCENE_CASES, scene=name),
            reason(NO_SCENE_SCORABLE, scene=name),
        )
        for name in sorted(set(scene.tolist()))
    }
    return MatrixSummary(
        overall=overall,
        interval=interval
        if interval is not None
        else overall_bootstrap(scores, present, n_resamples=n_resamples, seed=seed),
        normal=normal,
        hard=hard,
        relative_decline=relative_decline(normal, hard),
        abilities=ability_scores,
        ability_case_counts={
            label: int(counts[i]) for i, label in enumerate(abilities) if counts[i] > 0
        },
        categories={name: sum(values) / len(values) for name, values in grouped.items()},
        scenes=scenes,
        scene_case_counts={name: int((scene == name).sum()) for name in scenes},
        cases_scored=int(present.any(axis=1).sum()),
    )
