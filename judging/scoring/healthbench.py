"""The `healthbench` scoring profile: HealthBench's rubric score (OpenAI, 2025), as its
released `healthbench_eval.py` (openai/simple-evals) computes it.

Example score
-------------
For one example: the points of the criteria the grader marked met, over the sum of the
positive points. A met penalty (negative points) lowers it, so an example's score may be
negative; it is never above 1. An example without positive points has no score.

Tag scores
----------
An example tag (such as `theme:emergency_referrals`) scores each example that carries it with
the example's score. A criterion tag (such as `axis:accuracy`) scores an example by the same
ratio over its criteria with that tag alone, and only where they carry positive points.

Aggregates
----------
Overall, and each tag: the mean of the example scores, clipped to [0, 1] (the clip is applied
to the mean, as in the released code, not to each example), with the number of examples and
the bootstrap standard deviation of that clipped mean: 1,000 resamples of the examples with
replacement, drawn by numpy's legacy generator (`RandomState(seed).choice`, the generator
behind the released code's `np.random.choice`), the population standard deviation of the
resampled clipped means. The released code draws from the unseeded global generator; here
the seed is given, so the figure can be reproduced.

Nothing here touches Django; the caller builds `GradedExample`s from a judge run.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from judging.scoring.reasons import NO_EXAMPLES
from judging.scoring.values import Value

PROFILE = "healthbench"
AXIS_PREFIX = "axis:"
THEME_PREFIX = "theme:"
N_RESAMPLES = 1000
DEFAULT_SEED = 0


@dataclass(frozen=True, slots=True)
class GradedCriterion:
    """One rubric item with the grader's verdict: `met` True means the described behaviour
    happened (for a penalty, the bad one)."""

    points: int | float
    tags: tuple[str, ...]
    met: bool

    def __post_init__(self) -> None:
        if isinstance(self.points, bool) or not isinstance(self.points, int | float):
            raise TypeError(f"points must be a number, got {self.points!r}")
        if not isinstance(self.met, bool):
            raise TypeError(f"met must be a bool, got {self.met!r}")
        object.__setattr__(self, "tags", tuple(self.tags))


@dataclass(frozen=True, slots=True)
class GradedExample:
    example_id: str
    tags: tuple[str, ...]
    criteria: tuple[GradedCriterion, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "tags", tuple(self.tags))
        object.__setattr__(self, "criteria", tuple(self.criteria))


@dataclass(frozen=True)
class ClippedMean:
    """A mean clipped to [0, 1] with its bootstrap standard deviation; undefined (with a
    reason) when no example has a score."""

    mean: Value
    bootstrap_std: Value
    n_samples: int


@dataclass(frozen=True)
class HealthBenchScores:
    overall: ClippedMean
    by_axis: Mapping[str, ClippedMean]
    by_theme: Mapping[str, ClippedMean]
    # Every tag, example and criterion tags alike (what the released code reports).
    by_tag: Mapping[str, ClippedMean]
    examples: Mapping[str, float]
    seed: int
    n_resamples: int


def ratio_score(criteria: Sequence[GradedCriterion]) -> float | None:
    """Points of the met criteria over the sum of positive points; None without positive
    points."""
    possible = sum(c.points for c in criteria if c.points > 0)
    if possible == 0:
        return None
    return sum(c.points for c in criteria if c.met) / possible


def example_metrics(example: GradedExample) -> dict[str, float]:
    """The example's score under "overall_score", and one score per tag it is scored by."""
    overall = ratio_score(example.criteria)
    if overall is None:
        raise ValueError(f"example {example.example_id!r} has no criterion with positive points")
    if len(set(example.tags)) != len(example.tags):
        raise ValueError(f"example {example.example_id!r} carries a tag twice")
    metrics = {"overall_score": overall}
    metrics.update({tag: overall for tag in example.tags})
    by_tag: dict[str, list[GradedCriterion]] = {}
    for criterion in example.criteria:
        if len(set(criterion.tags)) != len(criterion.tags):
            raise ValueError(f"example {example.example_id!r}: a criterion carries a tag twice")
        for tag in criterion.tags:
            by_tag.setdefault(tag, []).append(criterion)
    for tag, items in by_tag.items():
        score = ratio_score(items)
        if score is not None:
            metrics[tag] = score
    return metrics


def clipped_mean(
    values: Sequence[float], *, seed: int = DEFAULT_SEED, n_resamples: int = N_RESAMPLES
) -> ClippedMean:
    """Mean clipped to [0, 1], and the standard deviation of the clipped means of
    `n_resamples` bootstrap resamples drawn with `RandomState(seed)`."""
    if not values:
        return ClippedMean(Value.undefined(NO_EXAMPLES), Value.undefined(NO_EXAMPLES), 0)
    data = np.asarray(values, dtype=np.float64)
    rng = np.random.RandomState(seed)
    means = [float(np.clip(np.mean(rng.choice(data, len(data))), 0, 1)) for _ in range(n_resamples)]
    return ClippedMean(
        mean=Value.of(float(np.clip(np.mean(data), 0, 1))),
        bootstrap_std=Value.of(float(np.std(means))),
        n_samples=len(values),
    )


def score_healthbench(
    examples: Iterable[GradedExample],
    *,
    seed: int = DEFAULT_SEED,
    n_resamples: int = N_RESAMPLES,
) -> HealthBenchScores:
    """Score one system's graded examples. Each aggregate's bootstrap starts from `seed`, so
    a tag's figure does not depend on which other tags were scored before it."""
    examples = tuple(examples)
    seen: set[str] = set()
    collected: dict[str, list[float]] = {}
    scores: dict[str, float] = {}
    for example in examples:
        if example.example_id in seen:
            raise ValueError(f"example {example.example_id!r} is given twice")
        seen.add(example.example_id)
        metrics = example_metrics(example)
        scores[example.example_id] = metrics["overall_score"]
        for name, value in metrics.items():
            collected.setdefault(name, []).append(value)
    overall_values = collected.pop("overall_score", [])
    by_tag = {
        tag: clipped_mean(values, seed=seed, n_resamples=n_resamples)
        for tag, values in collected.items()
    }
    return HealthBenchScores(
        overall=clipped_mean(overall_values, seed=seed, n_resamples=n_resamples),
        by_axis={t: s for t, s in by_tag.items() if t.startswith(AXIS_PREFIX)},
        by_theme={t: s for t, s in by_tag.items() if t.startswith(THEME_PREFIX)},
        by_tag=by_tag,
        examples=scores,
        seed=seed,
        n_resamples=n_resamples,
    )
