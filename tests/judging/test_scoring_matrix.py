"""The vectorised scorer gives the reference scorer's numbers, and its bootstrap interval
matches a plain loop over resamples. No database."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judging.scoring import CaseVerdicts, Profile, ScoredCriterion, score_system
from judging.scoring.matrix import ability_matrix, overall_bootstrap, resample_counts, summarise

LABELS = ["a", "b", "c", "d"]
CATEGORY = {"a": "X", "b": "X", "c": "Y", "d": "Z"}

criterion = st.builds(
    ScoredCriterion,
    ability=st.sampled_from(LABELS),
    category=st.just(""),  # replaced below so one ability always has one category
    weight=st.one_of(st.none(), st.integers(-10, 10)),
    is_catastrophic=st.booleans(),
    hit=st.booleans(),
)
case = st.tuples(
    st.sampled_from(["normal", "hard"]),
    st.sampled_from(["s1", "s2", ""]),
    st.lists(criterion, min_size=0, max_size=8),
)


def build(cases_spec) -> list[CaseVerdicts]:
    return [
        CaseVerdicts(
            case_id=f"c{i}",
            difficulty=difficulty,
            scenario=scene,
            criteria=tuple(
                ScoredCriterion(c.ability, CATEGORY[c.ability], c.weight, c.is_catastrophic, c.hit)
                for c in criteria
            ),
        )
        for i, (difficulty, scene, criteria) in enumerate(cases_spec)
    ]


def matrix_summary(cases: list[CaseVerdicts], profile: Profile, resamples: int = 50):
    flat = [(i, c) for i, case in enumerate(cases) for c in case.criteria]
    matrix = ability_matrix(
        row=[i for i, _ in flat],
        ability=[LABELS.index(c.ability) for _, c in flat],
        weight=[c.weight or 0 for _, c in flat],
        weighted=[c.weight is not None for _, c in flat],
        catastrophic=[c.is_catastrophic for _, c in flat],
        hit=[c.hit for _, c in flat],
        n_rows=len(cases),
        n_abilities=len(LABELS),
        profile=profile,
    )
    return summarise(
        matrix.scores,
        matrix.present,
        abilities=LABELS,
        categories=[CATEGORY[label] for label in LABELS],
        difficulty=[c.difficulty for c in cases],
        scene=[c.scenario for c in cases],
        n_resamples=resamples,
    )


def close(a, b) -> bool:
    if a.value is None or b.value is None:
        return a.value is None and b.value is None
    return a.value == pytest.approx(b.value, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.lists(case, min_size=0, max_size=6), st.sampled_from(list(Profile)))
def test_the_matrix_scorer_equals_the_reference_scorer(spec, profile):
    cases = build(spec)
    reference = score_system(cases, profile)
    fast = matrix_summary(cases, profile)
    for field in ("overall", "normal", "hard", "relative_decline"):
        assert close(getattr(fast, field), getattr(reference, field)), field
    assert fast.abilities == pytest.approx(dict(reference.abilities), abs=1e-9)
    assert fast.ability_case_counts == dict(reference.ability_case_counts)
    assert fast.categories == pytest.approx(dict(reference.categories), abs=1e-9)
    assert fast.cases_scored == reference.cases_scored
    # A scene's score is the overall score of its cases alone.
    for scene, value in fast.scenes.items():
        alone = score_system([c for c in cases if c.scenario == scene], profile)
        assert close(value, alone.overall), scene


def test_the_bootstrap_interval_matches_a_loop_over_resamples():
    rng = np.random.default_rng(3)
    present = rng.random((40, 5)) < 0.6
    scores = np.where(present, rng.random((40, 5)) * 100, 0.0)
    result = overall_bootstrap(scores, present, n_resamples=300, seed=11)

    # Direct: draw 40 row indices per resample with the same generator, then score the
    # drawn rows as a data set of their own (duplicates included).
    picks = np.random.default_rng(11).integers(0, 40, size=(300, 40))
    overall = []
    for drawn in picks:
        means = [
            scores[drawn, d][present[drawn, d]].mean() for d in range(5) if present[drawn, d].any()
        ]
        overall.append(np.mean(means))
    low, high = np.percentile(overall, [2.5, 97.5])
    assert (result.low, result.high) == (pytest.approx(low), pytest.approx(high))
    assert (result.resamples, result.seed, result.reason) == (300, 11, None)
    assert result.low < scores[present].mean() < result.high


def test_the_bootstrap_is_reproducible_and_undefined_below_two_cases():
    present = np.ones((6, 2), dtype=bool)
    scores = np.arange(12, dtype=float).reshape(6, 2)
    assert overall_bootstrap(scores, present, seed=5) == overall_bootstrap(scores, present, seed=5)
    single = overall_bootstrap(scores[:1], present[:1])
    assert single.low is None and single.reason == "too_few_cases_to_resample"
    assert not resample_counts(6, 1000, 5).flags.writeable
    with pytest.raises(ValueError, match="n_resamples"):
        overall_bootstrap(scores, present, n_resamples=0)


def test_a_scene_or_a_side_without_cases_is_undefined_with_a_reason():
    cases = build([("normal", "s1", [ScoredCriterion("a", "", 0, False, False)])])
    summary = matrix_summary(cases, Profile.HEARTBENCH)
    # max - min = 0: S_d = 0, so normal is 0 and the decline relative to it is undefined.
    assert summary.normal.value == 0.0
    assert summary.hard.reason == "no_hard_cases"
    assert summary.relative_decline.reason == "hard_undefined:reason=no_hard_cases"
    assert summary.interval.low is None
