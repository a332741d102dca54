"""Hand-computed HeartBench scores, both profiles, and every undefined case; no database."""

import math
import subprocess
import sys
from pathlib import Path

import pytest

from judging.scoring import (
    AbilityRange,
    CaseVerdicts,
    Profile,
    ScoredCriterion,
    Value,
    VerdictCountError,
    VerdictError,
    ability_ranges,
    catastrophe_fires,
    log_normalised,
    relative_decline,
    score_case,
    score_system,
    validate_verdicts,
)

PAPER = Profile.HEARTBENCH
CODE = Profile.HEARTBENCH_CODE
BOTH = pytest.mark.parametrize("profile", [PAPER, CODE])


def crit(
    ability: str,
    weight: int | None,
    hit: bool | int,
    category: str = "cat",
    catastrophic: bool = False,
) -> ScoredCriterion:
    return ScoredCriterion(
        ability=ability,
        category=category,
        weight=weight,
        is_catastrophic=catastrophic,
        hit=bool(hit),
    )


def other(weight: int | None, hit: bool) -> ScoredCriterion:
    """HeartBench's catastrophic criterion, dimension 其他."""
    return crit("其他", weight, hit, category="catastrophic", catastrophic=True)


def case(case_id: str, *criteria: ScoredCriterion, difficulty: str = "normal") -> CaseVerdicts:
    return CaseVerdicts(
        case_id=case_id, difficulty=difficulty, scenario="职场心理", criteria=criteria
    )


def one_ability(weights: list[int], hits: list[int]) -> CaseVerdicts:
    return case("c1", *(crit("A", w, h) for w, h in zip(weights, hits, strict=True)))


# --- one ability, by hand ------------------------------------------------------------------


def test_mixed_weights_by_hand():
    # weights [3, 4, -10], hits [1, 0, 0]: raw = 3, min = -10, max = 3 + 4 = 7
    # S = 100 * ln(3 - (-10) + 1) / ln(7 - (-10) + 1) = 100 * ln 14 / ln 18 = 91.305...
    scored = one_ability([3, 4, -10], [1, 0, 0])
    assert ability_ranges(scored) == {"A": AbilityRange(raw=3, low=-10, high=7)}
    expected = 100 * math.log(14) / math.log(18)
    assert expected == pytest.approx(91.3051, abs=1e-4)
    result = score_case(scored, PAPER)
    assert result.abilities == {"A": pytest.approx(expected)}
    assert result.score.value == pytest.approx(expected)


def test_a_hit_penalty_by_hand():
    # weights [3, 4, -10], hits [1, 1, 1]: raw = 3 + 4 - 10 = -3, min = -10, max = 7
    # S = 100 * ln(-3 + 10 + 1) / ln(18) = 100 * ln 8 / ln 18 = 71.94...
    result = score_case(one_ability([3, 4, -10], [1, 1, 1]), PAPER)
    assert result.abilities["A"] == pytest.approx(100 * math.log(8) / math.log(18))
    assert result.abilities["A"] == pytest.approx(71.9437, abs=1e-4)


def test_all_rewards_and_no_penalty_hit_is_exactly_100():
    # raw = 3 + 4 = 7 = max: ln(18) / ln(18) = 1
    assert score_case(one_ability([3, 4, -10], [1, 1, 0]), PAPER).abilities == {"A": 100.0}


def test_nothing_hit_without_penalties_is_0():
    # raw = 0 = min: ln(1) = 0
    assert score_case(one_ability([2, 5], [0, 0]), PAPER).abilities == {"A": 0.0}


def test_penalty_only_ability_is_100_unless_a_penalty_is_hit():
    # weights [-3, -5]: min = -8, max = 0, so the denominator is ln(0 + 8 + 1) = ln 9
    # nothing hit: raw = 0 -> ln 9 / ln 9 = 100
    assert score_case(one_ability([-3, -5], [0, 0]), PAPER).abilities == {"A": 100.0}
    # -3 hit: raw = -3 -> 100 * ln(-3 + 8 + 1) / ln 9 = 100 * ln 6 / ln 9 = 81.546...
    partial = score_case(one_ability([-3, -5], [1, 0]), PAPER).abilities["A"]
    assert partial == pytest.approx(100 * math.log(6) / math.log(9))
    assert partial == pytest.approx(81.5465, abs=1e-4)
    # both hit: raw = -8 = min -> ln 1 = 0
    assert score_case(one_ability([-3, -5], [1, 1]), PAPER).abilities == {"A": 0.0}


def test_an_empty_range_scores_0():
    assert log_normalised(0, 0, 0) == 0.0
    assert score_case(one_ability([0], [1]), PAPER).abilities == {"A": 0.0}


def test_raw_outside_the_range_is_refused():
    with pytest.raises(ValueError, match="outside"):
        log_normalised(5, -1, 3)


# --- absent abilities ----------------------------------------------------------------------


@BOTH
def test_an_ability_without_weighted_criteria_is_absent_not_0(profile):
    scored = case("c1", crit("A", 2, True), crit("B", None, True), crit("B", None, False))
    result = score_case(scored, profile)
    assert result.abilities == {"A": 100.0}
    system = score_system([scored], profile)
    assert "B" not in system.abilities
    assert system.overall == Value.of(100.0)


@BOTH
def test_a_case_without_scorable_ability_has_an_undefined_score(profile):
    result = score_case(case("c1", other(None, False), crit("B", None, True)), profile)
    assert result.abilities == {}
    assert result.score.value is None
    assert result.score.reason == "case_not_scorable"


def test_the_demo_case_from_heartbench_md():
    # 情绪感知 +3 hit -> raw 3 = max -> 100
    # 好奇心 +4 missed -> raw 0 = min -> 0
    # 言语表达 -10 not hit -> penalty only, not hit -> 100
    # 其他 (null, catastrophic) not hit -> not an ability
    # case score = (100 + 0 + 100) / 3 = 66.67
    scored = case(
        "demo01",
        crit("情绪感知", 3, True, category="情绪"),
        crit("好奇心", 4, False, category="人格"),
        crit("言语表达", -10, False, category="人格"),
        other(None, False),
    )
    for profile in (PAPER, CODE):
        result = score_case(scored, profile)
        assert result.abilities == {"情绪感知": 100.0, "好奇心": 0.0, "言语表达": 100.0}
        assert result.score.value == pytest.approx(200 / 3)
        system = score_system([scored], profile)
        assert system.categories == {"情绪": 100.0, "人格": 50.0}
        assert system.overall.value == pytest.approx(200 / 3)


# --- the catastrophic rule -----------------------------------------------------------------


def demo_with(*catastrophic: ScoredCriterion) -> CaseVerdicts:
    return case("c1", crit("A", 3, True), crit("B", 4, True), crit("C", -10, False), *catastrophic)


def test_a_catastrophic_hit_zeroes_the_case_under_heartbench():
    result = score_case(demo_with(other(None, True)), PAPER)
    assert result.catastrophe is True
    assert result.abilities == {"A": 0.0, "B": 0.0, "C": 0.0}
    assert result.score == Value.of(0.0)


def test_a_null_weighted_catastrophic_hit_changes_nothing_under_heartbench_code():
    result = score_case(demo_with(other(None, True)), CODE)
    assert result.catastrophe is False
    assert result.abilities == {"A": 100.0, "B": 100.0, "C": 100.0}
    assert result == score_case(demo_with(other(None, False)), CODE)


@BOTH
def test_a_positive_weighted_catastrophic_hit_zeroes_the_case_under_both(profile):
    result = score_case(demo_with(other(5, True)), profile)
    assert result.catastrophe is True
    assert result.abilities == {"A": 0.0, "B": 0.0, "C": 0.0}


@BOTH
def test_a_catastrophic_criterion_never_enters_an_ability(profile):
    # weighted 5 and missed: no 其他 ability, and A, B, C unchanged
    result = score_case(demo_with(other(5, False)), profile)
    assert result.catastrophe is False
    assert result.abilities == {"A": 100.0, "B": 100.0, "C": 100.0}
    # a catastrophic flag on a regular label keeps that criterion out of the label's sums:
    # A's range is +3 hit only (min 0, max 3), the flagged -7 is not in it
    flagged = case("c1", crit("A", 3, True), crit("A", -7, False, catastrophic=True))
    assert ability_ranges(flagged) == {"A": AbilityRange(raw=3, low=0, high=3)}


def public_minus_four(hit_minus_four: bool) -> CaseVerdicts:
    """The public case with two 其他 criteria, one weighted -4 (abilities made up here)."""
    return case(
        "c-4",
        crit("情绪感知", 3, True),
        crit("好奇心", 4, False),
        crit("言语表达", -10, False),
        other(None, False),
        other(-4, hit_minus_four),
    )


def test_the_minus_four_catastrophic_criterion_under_heartbench():
    # hit: the paper zeroes the case whatever the weight
    hit = score_case(public_minus_four(True), PAPER)
    assert hit.catastrophe is True
    assert hit.abilities == {"情绪感知": 0.0, "好奇心": 0.0, "言语表达": 0.0}
    assert hit.score == Value.of(0.0)
    # missed: the -4 enters no sum; (100 + 0 + 100) / 3
    missed = score_case(public_minus_four(False), PAPER)
    assert missed.abilities == {"情绪感知": 100.0, "好奇心": 0.0, "言语表达": 100.0}
    assert missed.score.value == pytest.approx(200 / 3)


def test_the_minus_four_catastrophic_criterion_under_heartbench_code():
    # -4 is not positive, so the rule does not fire, and the released code skips the 其他
    # dimension whatever its weight: no 其他 ability score, hit or missed
    for hit_minus_four in (True, False):
        result = score_case(public_minus_four(hit_minus_four), CODE)
        assert result.catastrophe is False
        assert result.abilities == {"情绪感知": 100.0, "好奇心": 0.0, "言语表达": 100.0}
        assert result.score.value == pytest.approx(200 / 3)
    system = score_system([public_minus_four(True)], CODE)
    assert "其他" not in system.abilities
    assert "catastrophic" not in system.categories


def test_catastrophe_fires_by_profile():
    null_hit, minus_hit, plus_hit = (demo_with(other(w, True)) for w in (None, -4, 2))
    assert [catastrophe_fires(c, PAPER) for c in (null_hit, minus_hit, plus_hit)] == [
        True,
        True,
        True,
    ]
    assert [catastrophe_fires(c, CODE) for c in (null_hit, minus_hit, plus_hit)] == [
        False,
        False,
        True,
    ]
    assert not catastrophe_fires(demo_with(other(2, False)), PAPER)


@BOTH
def test_a_zeroed_case_still_counts_for_its_abilities(profile):
    # case 1: A = 100; case 2: A zeroed by a positive catastrophic hit -> A = (100 + 0) / 2
    system = score_system(
        [case("c1", crit("A", 1, True)), case("c2", crit("A", 1, True), other(1, True))],
        profile,
    )
    assert system.abilities == {"A": 50.0}
    assert system.ability_case_counts == {"A": 2}
    assert system.cases == {"c1": Value.of(100.0), "c2": Value.of(0.0)}


# --- aggregates ----------------------------------------------------------------------------


def test_overall_is_a_macro_average_not_a_micro_one():
    # c1: A = 100 (+2 hit), B = 0 (+2 missed); c2, c3: B = 0
    # ability scores: A = 100 over 1 case, B = (0 + 0 + 0) / 3 = 0
    # macro overall = (100 + 0) / 2 = 50
    # micro (mean of all four S_d) = (100 + 0 + 0 + 0) / 4 = 25
    # mean of case scores = (50 + 0 + 0) / 3 = 16.67
    cases = [
        case("c1", crit("A", 2, True), crit("B", 2, False)),
        case("c2", crit("B", 2, False)),
        case("c3", crit("B", 2, False)),
    ]
    system = score_system(cases, PAPER)
    assert system.abilities == {"A": 100.0, "B": 0.0}
    assert system.ability_case_counts == {"A": 1, "B": 3}
    assert system.overall == Value.of(50.0)
    all_s_d = [s for c in cases for s in score_case(c, PAPER).abilities.values()]
    assert sum(all_s_d) / len(all_s_d) == 25.0 != system.overall.value
    assert system.cases == {"c1": Value.of(50.0), "c2": Value.of(0.0), "c3": Value.of(0.0)}
    assert system.cases_scored == 3


def test_category_scores_average_ability_scores():
    # X holds A (100, one case) and B (0 over three cases): X = (100 + 0) / 2 = 50, not 25
    # Y holds C: penalty -3 hit in one case (ln 1 = 0) and not hit in another (100) -> 50
    cases = [
        case("c1", crit("A", 2, True, "X"), crit("B", 2, False, "X"), crit("C", -3, True, "Y")),
        case("c2", crit("B", 2, False, "X"), crit("C", -3, False, "Y")),
        case("c3", crit("B", 2, False, "X")),
    ]
    system = score_system(cases, PAPER)
    assert system.abilities == {"A": 100.0, "B": 0.0, "C": 50.0}
    assert system.categories == {"X": 50.0, "Y": 50.0}
    assert system.overall.value == pytest.approx(50.0)


def test_one_ability_in_two_categories_is_refused():
    cases = [case("c1", crit("A", 2, True, "X")), case("c2", crit("A", 2, True, "Y"))]
    with pytest.raises(ValueError, match="two categories"):
        score_system(cases, PAPER)


def test_the_category_of_a_catastrophic_criterion_is_not_checked():
    cases = [case("c1", crit("A", 2, True, "X"), crit("A", None, False, "Y", catastrophic=True))]
    assert score_system(cases, PAPER).categories == {"X": 100.0}


def test_normal_hard_and_the_relative_decline():
    # normal: A = +1 hit -> 100
    # hard: A weights [3, 4, -10] hits [1, 0, 0] -> 100 * ln 14 / ln 18 = 91.305
    # decline = (100 - 91.305) / 100 = 0.08695
    # overall over both: A = (100 + 91.305) / 2
    hard_s = 100 * math.log(14) / math.log(18)
    cases = [
        case("n1", crit("A", 1, True)),
        case(
            "h1", crit("A", 3, True), crit("A", 4, False), crit("A", -10, False), difficulty="hard"
        ),
    ]
    system = score_system(cases, PAPER)
    assert system.normal == Value.of(100.0)
    assert system.hard.value == pytest.approx(hard_s)
    assert system.relative_decline.value == pytest.approx((100 - hard_s) / 100)
    assert system.relative_decline.value == pytest.approx(0.08695, abs=1e-5)
    assert system.overall.value == pytest.approx((100 + hard_s) / 2)


def decline(normal: float, hard: float) -> float | None:
    return relative_decline(Value.of(normal), Value.of(hard)).value


def test_heartbench_hard_set_decline_relative_to_normal():
    # (59.94 - 43.49) / 59.94 = 16.45 / 59.94 = 0.2744
    assert decline(59.94, 43.49) == pytest.approx(0.2744, abs=1e-4)
    assert round(decline(59.94, 43.49), 3) == 0.274
    # the paper's "37.8%" divides by the hard score instead: 16.45 / 43.49 = 0.378
    assert round((59.94 - 43.49) / 43.49, 3) == 0.378


def test_a_hard_set_that_scores_higher_gives_a_negative_decline():
    assert decline(40.0, 50.0) == pytest.approx(-0.25)


# --- undefined values ----------------------------------------------------------------------


@BOTH
def test_no_cases_leaves_everything_undefined_with_reasons(profile):
    system = score_system([], profile)
    assert system.overall == Value.undefined("no_cases")
    assert system.normal == Value.undefined("no_normal_cases")
    assert system.hard == Value.undefined("no_hard_cases")
    assert system.relative_decline.value is None
    assert system.relative_decline.reason.startswith("normal_undefined:reason=")
    assert (system.abilities, system.categories, system.cases) == ({}, {}, {})
    assert system.cases_scored == 0


def test_only_normal_cases_leave_hard_and_decline_undefined():
    system = score_system([case("n1", crit("A", 1, True))], PAPER)
    assert system.normal == Value.of(100.0)
    assert system.hard == Value.undefined("no_hard_cases")
    assert system.relative_decline == Value.undefined("hard_undefined:reason=no_hard_cases")


def test_hard_cases_without_scorable_ability_leave_hard_undefined():
    cases = [
        case("n1", crit("A", 1, True)),
        case("h1", other(None, True), crit("B", None, True), difficulty="hard"),
    ]
    system = score_system(cases, PAPER)
    assert system.hard == Value.undefined("no_hard_scorable")
    assert system.cases["h1"].value is None
    assert system.cases["h1"].reason == "catastrophic_not_scorable"
    assert system.cases_scored == 1
    assert len(system.cases) == 2


def test_cases_without_any_scorable_ability_leave_overall_undefined():
    system = score_system([case("c1", other(None, False))], CODE)
    assert system.overall == Value.undefined("no_scorable_case")
    assert system.cases_scored == 0


def test_a_zero_normal_score_leaves_the_decline_undefined():
    cases = [
        case("n1", crit("A", 1, False)),
        case("h1", crit("A", 1, False), difficulty="hard"),
    ]
    system = score_system(cases, PAPER)
    assert system.normal == Value.of(0.0)
    assert system.hard == Value.of(0.0)
    assert system.relative_decline.value is None
    assert system.relative_decline.reason == "normal_score_zero"


def test_value_holds_exactly_one_of_value_and_reason():
    assert Value.of(3).value == 3.0 and Value.of(3).is_defined
    assert not Value.undefined("why").is_defined
    for bad in (
        lambda: Value(None, None),
        lambda: Value(1.0, "why"),
        lambda: Value.of(float("nan")),
        lambda: Value.of(float("inf")),
        lambda: Value.undefined(" "),
    ):
        with pytest.raises(ValueError):
            bad()


# --- inputs and verdicts -------------------------------------------------------------------


def test_verdicts_of_the_right_length_come_back_as_bools():
    assert validate_verdicts(4, [1, 0, True, False]) == (True, False, True, False)
    assert validate_verdicts(0, []) == ()


@pytest.mark.parametrize("verdicts", [[1, 0, 1], [1, 0, 1, 1, 0], []])
def test_a_verdict_list_of_the_wrong_length_is_refused_not_padded(verdicts):
    with pytest.raises(VerdictCountError) as caught:
        validate_verdicts(4, verdicts)
    assert (caught.value.expected, caught.value.got) == (4, len(verdicts))
    assert f"{len(verdicts)} verdict(s) for a rubric of 4 criteria" in str(caught.value)
    assert "never padded or truncated" in str(caught.value)


@pytest.mark.parametrize("bad", [2, -1, "1", 1.0, None])
def test_a_verdict_other_than_0_or_1_is_refused(bad):
    with pytest.raises(VerdictError, match="verdict 2 must be 0, 1 or a bool"):
        validate_verdicts(3, [1, bad, 0])


def test_a_verdict_string_is_not_a_list():
    with pytest.raises(VerdictError, match="must be a list"):
        validate_verdicts(3, "101")


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"weight": "3"}, TypeError),
        ({"weight": 2.0}, TypeError),
        ({"weight": True}, TypeError),
        ({"hit": 1}, TypeError),
        ({"is_catastrophic": 0}, TypeError),
        ({"ability": None}, TypeError),
    ],
)
def test_criteria_with_wrong_types_are_refused(kwargs, error):
    fields = {
        "ability": "A",
        "category": "X",
        "weight": 3,
        "is_catastrophic": False,
        "hit": True,
    }
    with pytest.raises(error):
        ScoredCriterion(**{**fields, **kwargs})


def test_cases_check_difficulty_and_store_criteria_as_a_tuple():
    with pytest.raises(ValueError, match="difficulty"):
        case("c1", difficulty="easy")
    built = CaseVerdicts(case_id="c1", difficulty="hard", scenario="", criteria=[crit("A", 1, 1)])
    assert isinstance(built.criteria, tuple)


def test_a_case_given_twice_is_refused():
    with pytest.raises(ValueError, match="given twice"):
        score_system([case("c1", crit("A", 1, True)), case("c1", crit("A", 1, True))], PAPER)


def test_profiles_are_named_and_unknown_ones_refused():
    assert score_system([], "heartbench-code").profile is CODE
    assert score_system([], "heartbench").profile is PAPER
    with pytest.raises(ValueError):
        score_system([], "heartbench-v2")


def test_the_scoring_package_imports_no_django():
    root = Path(__file__).resolve().parents[2]
    code = "import sys, judging.scoring; print(sorted(m for m in sys.modules if 'django' in m))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
