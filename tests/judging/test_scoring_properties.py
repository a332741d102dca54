"""The scorer against a deliberately naive transcription of HeartBench's formula.

The transcription below is written from the definitions (HEARTBENCH.md "Scoring" and the
profile definitions in `judging.scoring`), with plain loops and no shared code, so that a
mistake in the package does not repeat itself here.
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judging.scoring import CaseVerdicts, Profile, ScoredCriterion, score_case, score_system

CATEGORY_OF = {"warmth": "personality", "curiosity": "personality", "coping": "emotion"}
CATEGORY_OF["moral"] = "morality"
CATEGORY_OF["其他"] = "other"
LABELS = sorted(CATEGORY_OF)
PROFILES = [Profile.HEARTBENCH, Profile.HEARTBENCH_CODE]

# --- the naive transcription ---------------------------------------------------------------


def naive_case(criteria, profile):
    """{label: S_d} for one case; criteria are (label, weight, catastrophic, hit) tuples."""
    zeroed = False
    for _label, weight, catastrophic, hit in criteria:
        if catastrophic and hit:
            if profile == "heartbench":
                zeroed = True
            if profile == "heartbench-code" and weight is not None and weight > 0:
                zeroed = True
    labels = []
    for label, weight, catastrophic, _hit in criteria:
        if not catastrophic and weight is not None and label not in labels:
            labels.append(label)
    scores = {}
    for wanted in labels:
        raw = 0
        lowest = 0
        highest = 0
        for label, weight, catastrophic, hit in criteria:
            if label != wanted or catastrophic or weight is None:
                continue
            if hit:
                raw = raw + weight
            if weight < 0:
                lowest = lowest + weight
            if weight > 0:
                highest = highest + weight
        if zeroed or highest - lowest <= 0:
            scores[wanted] = 0.0
        else:
            scores[wanted] = 100 * math.log(raw - lowest + 1) / math.log(highest - lowest + 1)
    return scores


def naive_average(numbers):
    if len(numbers) == 0:
        return None
    total = 0.0
    for number in numbers:
        total = total + number
    return total / len(numbers)


def naive_abilities(cases, profile):
    collected = {}
    for case in cases:
        for label, s_d in naive_case(case["criteria"], profile).items():
            collected.setdefault(label, []).append(s_d)
    return {label: naive_average(values) for label, values in collected.items()}


def naive_overall(cases, profile):
    return naive_average(list(naive_abilities(cases, profile).values()))


def naive_categories(cases, profile):
    grouped = {}
    for label, score in naive_abilities(cases, profile).items():
        grouped.setdefault(CATEGORY_OF[label], []).append(score)
    return {name: naive_average(scores) for name, scores in grouped.items()}


# --- generated cases -----------------------------------------------------------------------

WEIGHT_POOLS = {
    "mixed": st.one_of(st.none(), st.integers(-10, -1), st.integers(1, 10)),
    "penalties": st.one_of(st.none(), st.integers(-10, -1)),
    "rewards": st.one_of(st.none(), st.integers(1, 10)),
}


@st.composite
def raw_case(draw, case_id):
    pool = WEIGHT_POOLS[draw(st.sampled_from(sorted(WEIGHT_POOLS)))]
    criterion = st.tuples(
        st.sampled_from(LABELS),
        pool,
        st.booleans() if draw(st.booleans()) else st.just(False),
        st.booleans(),
    )
    return {
        "case_id": case_id,
        "difficulty": draw(st.sampled_from(["normal", "hard"])),
        "criteria": draw(st.lists(criterion, max_size=8)),
    }


@st.composite
def raw_cases(draw):
    count = draw(st.integers(0, 6))
    return [draw(raw_case(f"case{i}")) for i in range(count)]


def build(raw) -> CaseVerdicts:
    return CaseVerdicts(
        case_id=raw["case_id"],
        difficulty=raw["difficulty"],
        scenario="scene",
        criteria=tuple(
            ScoredCriterion(
                ability=label,
                category=CATEGORY_OF[label],
                weight=weight,
                is_catastrophic=catastrophic,
                hit=hit,
            )
            for label, weight, catastrophic, hit in raw["criteria"]
        ),
    )


def same(value, expected):
    """A `Value` against a naive float-or-None."""
    if expected is None:
        return value.value is None and bool(value.reason)
    return value.reason is None and value.value == pytest.approx(expected, rel=1e-12, abs=1e-9)


# --- properties ----------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(raw_case("c"), st.sampled_from(PROFILES))
def test_one_case_matches_the_naive_formula(raw, profile):
    result = score_case(build(raw), profile)
    expected = naive_case(raw["criteria"], str(profile))
    assert list(result.abilities) == list(expected)
    assert dict(result.abilities) == pytest.approx(expected, rel=1e-12, abs=1e-9)
    assert same(result.score, naive_average(list(expected.values())))


@settings(max_examples=300, deadline=None)
@given(raw_cases(), st.sampled_from(PROFILES))
def test_a_system_matches_the_naive_formula(raws, profile):
    scores = score_system([build(raw) for raw in raws], profile)
    assert dict(scores.abilities) == pytest.approx(
        naive_abilities(raws, profile), rel=1e-12, abs=1e-9
    )
    assert dict(scores.categories) == pytest.approx(
        naive_categories(raws, profile), rel=1e-12, abs=1e-9
    )
    assert same(scores.overall, naive_overall(raws, profile))
    normal = naive_overall([r for r in raws if r["difficulty"] == "normal"], profile)
    hard = naive_overall([r for r in raws if r["difficulty"] == "hard"], profile)
    assert same(scores.normal, normal)
    assert same(scores.hard, hard)
    if normal is None or hard is None or normal == 0:
        assert same(scores.relative_decline, None)
    else:
        assert same(scores.relative_decline, (normal - hard) / normal)
    per_case = {r["case_id"]: naive_case(r["criteria"], profile) for r in raws}
    assert list(scores.cases) == list(per_case)
    for case_id, expected in per_case.items():
        assert same(scores.cases[case_id], naive_average(list(expected.values())))
    assert scores.cases_scored == sum(1 for expected in per_case.values() if expected)


@settings(max_examples=300, deadline=None)
@given(raw_case("c"), st.sampled_from(PROFILES))
def test_every_ability_score_lies_in_0_to_100(raw, profile):
    for s_d in score_case(build(raw), profile).abilities.values():
        assert 0.0 <= s_d <= 100.0


@settings(max_examples=300, deadline=None)
@given(raw_case("c"), st.sampled_from(PROFILES))
def test_every_reward_hit_and_no_penalty_hit_gives_exactly_100(raw, profile):
    best = [
        (label, weight, catastrophic, not catastrophic and weight is not None and weight > 0)
        for label, weight, catastrophic, _ in raw["criteria"]
    ]
    result = score_case(build({**raw, "criteria": best}), profile)
    assert result.catastrophe is False
    assert all(s_d == 100.0 for s_d in result.abilities.values())


@settings(max_examples=300, deadline=None)
@given(raw_case("c"))
def test_the_profiles_differ_only_when_a_catastrophic_criterion_is_hit(raw):
    paper = score_case(build(raw), Profile.HEARTBENCH)
    code = score_case(build(raw), Profile.HEARTBENCH_CODE)
    assert list(paper.abilities) == list(code.abilities)
    if not any(catastrophic and hit for _, _, catastrophic, hit in raw["criteria"]):
        assert paper == code
    if paper.catastrophe:
        assert all(s_d == 0.0 for s_d in paper.abilities.values())
