"""The `healthbench` profile gives the numbers of HealthBench's own scoring code.

The reference below is a transcription of the scoring functions of openai/simple-evals,
`healthbench_eval.py` at commit ee3b0318d8d1d9d72755a4120879be65f7c07e9e (MIT licence):
`calculate_score`, the metric part of `HealthBenchEval.grade_sample`, `_compute_clipped_stats`
and the metric part of `_aggregate_get_clipped_mean`. The package is not on PyPI and imports
its samplers at module level, so its scoring is kept here, in the test, and nowhere in the
application.
"""

import random
from collections import defaultdict

import numpy as np
import pytest

from judging.scoring.healthbench import (
    GradedCriterion,
    GradedExample,
    clipped_mean,
    ratio_score,
    score_healthbench,
)

TOLERANCE = 1e-9

# ---- reference (openai/simple-evals healthbench_eval.py @ ee3b031), transcribed ----------


class RubricItem:
    def __init__(self, criterion: str, points: float, tags: list[str]):
        self.criterion = criterion
        self.points = points
        self.tags = tags


def calculate_score(rubric_items, grading_response_list):
    total_possible_points = sum(
        rubric_item.points for rubric_item in rubric_items if rubric_item.points > 0
    )
    if total_possible_points == 0:
        # should not happen for overall score, but may happen for tags
        return None

    achieved_points = sum(
        rubric_item.points
        for rubric_item, grading_response in zip(rubric_items, grading_response_list, strict=True)
        if grading_response["criteria_met"]
    )
    overall_score = achieved_points / total_possible_points
    return overall_score


def grade_sample_metrics(example_tags, rubric_items, grading_response_list):
    # compute the overall score
    overall_score = calculate_score(rubric_items, grading_response_list)
    assert overall_score is not None
    metrics = {
        "overall_score": overall_score,
    }

    # compute scores for example-level tags)
    example_tag_scores = {tag: overall_score for tag in example_tags}
    assert len(example_tag_scores) == len(example_tags)  # No duplicates.
    metrics.update(example_tag_scores)

    # compute scores for rubric-level tags
    rubric_tag_items_grades = defaultdict(list)
    for rubric_item, grading_response in zip(rubric_items, grading_response_list):  # noqa: B905
        curr_item_tags = set()  # Ensure no duplicates in a rubric item.
        for tag in rubric_item.tags:
            rubric_tag_items_grades[tag].append((rubric_item, grading_response))
            assert tag not in curr_item_tags
            curr_item_tags.add(tag)

    rubric_tag_scores = {}
    for tag, items_grades in rubric_tag_items_grades.items():
        items, grades = zip(*items_grades)  # noqa: B905
        score = calculate_score(items, grades)
        if score is not None:  # implies at least one positive criterion
            rubric_tag_scores[tag] = score
    metrics.update(rubric_tag_scores)
    return metrics


def _compute_clipped_stats(values, stat):
    """Computes the mean (clipped to [0, 1]), bootstrap std for that mean, and n_samples for
    final HealthBench scoring."""
    if stat == "mean":
        return np.clip(np.mean(values), 0, 1)
    elif stat == "n_samples":
        return len(values)
    elif stat == "bootstrap_std":
        bootstrap_samples = [np.random.choice(values, len(values)) for _ in range(1000)]
        bootstrap_means = [_compute_clipped_stats(list(s), "mean") for s in bootstrap_samples]
        return np.std(bootstrap_means)
    else:
        raise ValueError(f"Unknown {stat =}")


def aggregate_metrics(single_eval_results):
    """`single_eval_results`: (metrics, score) per example."""
    name2values = defaultdict(list)
    for metrics, score in single_eval_results:
        for name, value in metrics.items():
            name2values[name].append(value)
        if score is not None:
            name2values["score"].append(score)
    final_metrics = {}
    for name, values in name2values.items():
        for stat in ["mean", "n_samples", "bootstrap_std"]:
            key = name if stat == "mean" else f"{name}:{stat}"
            final_metrics[key] = _compute_clipped_stats(values, stat)
    return final_metrics, name2values


# ---- a seeded set -------------------------------------------------------------------------

AXES = ["axis:accuracy", "axis:completeness", "axis:communication_quality"]
THEMES = ["theme:emergency_referrals", "theme:global_health", "theme:hedging"]


def seeded_set(seed: int, n: int = 120):
    """Examples with rubrics of 2-12 items, points -10..10 (each with one positive at least),
    axis, level and cluster tags, one theme and sometimes a second example tag, and random
    verdicts."""
    rng = random.Random(seed)
    examples = []
    for index in range(n):
        items = []
        for position in range(rng.randint(2, 12)):
            points = (
                rng.randint(1, 10)
                if position == 0
                else rng.choice([p for p in range(-10, 11) if p])
            )
            tags = [rng.choice(AXES), rng.choice(["level:example", "level:cluster"])]
            if rng.random() < 0.3:
                tags.append(f"cluster:c{rng.randint(1, 3)}")
            items.append((points, tags, rng.random() < 0.5))
        tags = [rng.choice(THEMES)]
        if rng.random() < 0.3:
            tags.append("physician_agreed_category:enough-context")
        examples.append((f"e{index}", tags, items))
    return examples


def as_reference(example):
    _id, tags, items = example
    rubric = [
        RubricItem(f"criterion {i}", points, list(t)) for i, (points, t, _) in enumerate(items)
    ]
    grades = [{"criteria_met": met, "explanation": ""} for _, _, met in items]
    metrics = grade_sample_metrics(tags, rubric, grades)
    return metrics, metrics["overall_score"]


def as_concord(example) -> GradedExample:
    example_id, tags, items = example
    return GradedExample(
        example_id=example_id,
        tags=tuple(tags),
        criteria=tuple(GradedCriterion(points=p, tags=tuple(t), met=m) for p, t, m in items),
    )


# ---- the checks ---------------------------------------------------------------------------


@pytest.mark.parametrize("data_seed", [1, 2, 3])
def test_scores_equal_the_reference_scoring_on_a_seeded_set(data_seed):
    examples = seeded_set(data_seed)
    np.random.seed(12345)
    reference, name2values = aggregate_metrics([as_reference(e) for e in examples])
    ours = score_healthbench([as_concord(e) for e in examples], seed=7)

    assert ours.overall.mean.value == pytest.approx(reference["overall_score"], abs=TOLERANCE)
    assert ours.overall.mean.value == pytest.approx(reference["score"], abs=TOLERANCE)
    assert ours.overall.n_samples == reference["overall_score:n_samples"] == len(examples)
    # Every tag the reference reports, and no other, with its mean and count.
    assert set(ours.by_tag) == set(name2values) - {"overall_score", "score"}
    for tag, stat in ours.by_tag.items():
        assert stat.mean.value == pytest.approx(reference[tag], abs=TOLERANCE), tag
        assert stat.n_samples == reference[f"{tag}:n_samples"], tag
    assert set(ours.by_axis) == set(AXES)
    assert set(ours.by_theme) == set(THEMES)
    for example, (metrics, _score) in zip(
        examples, (as_reference(e) for e in examples), strict=True
    ):
        assert ours.examples[example[0]] == pytest.approx(metrics["overall_score"], abs=1e-15)

    # The bootstrap: the reference draws from numpy's global generator; seeded alike before
    # each figure, it gives the same standard deviation.
    for name, stat in [("overall_score", ours.overall), *ours.by_tag.items()]:
        np.random.seed(7)
        expected = _compute_clipped_stats(name2values[name], "bootstrap_std")
        assert stat.bootstrap_std.value == pytest.approx(expected, abs=TOLERANCE), name


def test_the_clip_applies_to_the_mean_not_to_each_example():
    met_penalty = GradedExample(
        "a",
        ("theme:hedging",),
        (
            GradedCriterion(points=5, tags=("axis:accuracy",), met=False),
            GradedCriterion(points=-10, tags=("axis:accuracy",), met=True),
        ),
    )
    full = GradedExample(
        "b", ("theme:hedging",), (GradedCriterion(points=4, tags=("axis:accuracy",), met=True),)
    )
    scores = score_healthbench([met_penalty, full])
    assert scores.examples == {"a": -2.0, "b": 1.0}
    assert scores.overall.mean.value == 0.0  # mean -0.5, clipped
    assert ratio_score([GradedCriterion(points=-3, tags=(), met=True)]) is None


def test_a_penalty_only_axis_has_no_score_in_that_example():
    example = GradedExample(
        "a",
        (),
        (
            GradedCriterion(points=5, tags=("axis:accuracy",), met=True),
            GradedCriterion(points=-5, tags=("axis:completeness",), met=True),
        ),
    )
    scores = score_healthbench([example])
    assert set(scores.by_axis) == {"axis:accuracy"}
    assert scores.overall.mean.value == 0.0


def test_no_examples_is_undefined_with_a_reason_never_zero():
    empty = clipped_mean([])
    assert not empty.mean.is_defined and empty.mean.reason
    assert score_healthbench([]).overall.n_samples == 0


def test_an_example_given_twice_or_without_positive_points_is_refused():
    one = as_concord(seeded_set(1, n=1)[0])
    with pytest.raises(ValueError, match="given twice"):
        score_healthbench([one, one])
    penalties = GradedExample("p", (), (GradedCriterion(points=-1, tags=(), met=False),))
    with pytest.raises(ValueError, match="no criterion with positive points"):
        score_healthbench([penalties])
