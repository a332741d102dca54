import pytest
from django.utils import translation

from annotation.rubric_edit.rows import RubricRow
from annotation.rubric_edit.validation import validate_rows

LABELS = {"温暖", "好奇心", "言语表达", "其他"}
CATASTROPHIC = {"其他"}


@pytest.fixture(autouse=True)
def english():
    # The messages are compared in English; a page requested earlier in the same thread
    # (with a Chinese Accept-Language) leaves its language active.
    with translation.override("en"):
        yield


def check(rows, confirm=False):
    return validate_rows(
        rows,
        abilities=LABELS,
        catastrophic_abilities=CATASTROPHIC,
        confirm_multiple_catastrophic=confirm,
    )


def r(key, ability="温暖", weight=3, text=None):
    return RubricRow(
        key=key, ability=ability, weight=weight, text=text if text is not None else f"标准{key}"
    )


def test_a_valid_rubric_has_no_problems():
    problems = check([r("a"), r("b", "言语表达", -10), r("c", "其他", None)])
    assert not problems


def test_each_row_problem_is_attached_to_its_row():
    problems = check(
        [
            r("a"),
            r("empty", text="  "),
            r("noability", ability=""),
            r("unknown", ability="创造力"),
            r("high", weight=11),
            r("zero", weight=0),
            r("text", weight="3.5"),
            r("noweight", weight=None),
            r("dup", text="标准a"),
        ]
    )
    assert problems.rows["empty"] == ["Write the criterion text."]
    assert problems.rows["noability"] == ["Pick an ability."]
    assert "not an ability of the taxonomy" in problems.rows["unknown"][0]
    assert problems.rows["high"] == ["The weight 11 is out of range: use -10 to 10."]
    assert "A weight of 0 counts for nothing" in problems.rows["zero"][0]
    assert problems.rows["text"] == ["The weight must be a whole number from -10 to 10."]
    assert "or choose the catastrophic ability" in problems.rows["noweight"][0]
    assert problems.rows["dup"] == ["Same text as criterion 1; each criterion must be distinct."]
    assert "a" not in problems.rows


def test_duplicates_ignore_case_and_spacing():
    problems = check([r("a", text="Ask  about work"), r("b", text="ask about work ")])
    assert "Same text as criterion 1" in problems.rows["b"][0]


def test_rubric_level_rules():
    assert check([]).rubric == ["A rubric needs at least one criterion."]
    only_penalties = check([r("a", weight=-3), r("b", "其他", None)])
    assert only_penalties.rubric == [
        "A rubric needs at least one criterion with a positive weight."
    ]
    two = check([r("a"), r("b", "其他", None), r("c", "其他", -4)])
    assert two.needs_catastrophic_confirmation
    assert "has 2 catastrophic criteria" in two.rubric[0]
    assert not check([r("a"), r("b", "其他", None), r("c", "其他", -4)], confirm=True)
