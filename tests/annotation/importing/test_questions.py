"""The question-format rules, without a database."""

import pytest

from annotation.importing.issues import RowInvalid
from annotation.importing.jsonl import JsonLine, read_json_lines
from annotation.importing.questions import parse_question, rubric_hash
from tests.conftest import question


def parse_error(row) -> RowInvalid:
    with pytest.raises(RowInvalid) as caught:
        parse_question(row)
    return caught.value


def test_a_valid_row_keeps_everything_in_order():
    row = parse_question(question())
    assert row.question_id == "c1"
    assert [c.weight for c in row.rubric] == [3, 4, -10, None]
    assert row.rubric[3].dimension == "其他"
    assert row.dialogue[0] == {"role": "A", "content": "最近加班太多了，我觉得自己快撑不住了。"}
    assert (row.primary_scene, row.secondary_scene) == ("职场心理", "工作压力")


def test_the_rubric_hash_changes_with_any_criterion_detail():
    rubric = parse_question(question()).rubric
    changed = parse_question(
        question(
            rubric=[{"dimension": "情绪感知", "score": 2, "content": "指出用户的疲惫和压力感"}]
        )
    ).rubric
    assert rubric_hash(rubric) == rubric_hash(list(rubric))
    assert rubric_hash(rubric) != rubric_hash(changed)


@pytest.mark.parametrize(
    ("row", "field", "words"),
    [
        ([1, 2], "", "expected a JSON object, got list"),
        ({**question(), "question_id": 12}, "question_id", "expected a string, got integer"),
        ({k: v for k, v in question().items() if k != "question_id"}, "question_id", "missing"),
        ({**question(), "rubric": []}, "rubric", "must not be empty"),
        ({**question(), "rubric": "none"}, "rubric", "expected a list, got string"),
        ({**question(), "dialogue": [{"role": "A"}]}, "dialogue[0].content", "missing"),
        ({**question(), "difficulty": "easy"}, "difficulty", "must be 'normal' or 'hard'"),
        (
            {**question(), "rubric": [{"dimension": "温暖", "score": 11, "content": "x"}]},
            "rubric[0].score",
            "integer from -10 to 10 or null, got 11",
        ),
        (
            {**question(), "rubric": [{"dimension": "温暖", "score": "3", "content": "x"}]},
            "rubric[0].score",
            'got string "3"',
        ),
        (
            {**question(), "rubric": [{"dimension": "温暖", "score": 2.5, "content": "x"}]},
            "rubric[0].score",
            "got number 2.5",
        ),
        (
            {**question(), "rubric": [{"dimension": "温暖", "score": True, "content": "x"}]},
            "rubric[0].score",
            "got boolean true",
        ),
        (
            {**question(), "rubric": [{"dimension": "温暖", "content": "x"}]},
            "rubric[0].score",
            "missing (use null for no weight)",
        ),
        (
            {**question(), "rubric": [{"dimension": "", "score": 1, "content": "x"}]},
            "rubric[0].dimension",
            "must not be empty",
        ),
    ],
)
def test_invalid_rows_name_the_field(row, field, words):
    error = parse_error(row)
    assert error.field == field
    assert words in error.message


def test_scenes_may_be_empty_or_absent():
    row = parse_question({**question(), "primary_scene": ""})
    assert row.primary_scene == ""
    row = parse_question({k: v for k, v in question().items() if k != "secondary_scene"})
    assert row.secondary_scene == ""


def test_lines_report_bad_utf8_and_bad_json_by_line_and_skip_blanks():
    items = list(
        read_json_lines(
            [
                b'\xef\xbb\xbf{"a": 1}\n',
                b"\n",
                b'{"b": \xff}\n',
                b"{oops}\n",
                '{"c": "中"}'.encode(),
            ]
        )
    )
    assert items[0] == JsonLine(1, {"a": 1})
    assert items[1].line == 3 and "not valid UTF-8 (byte 0xff" in items[1].message
    assert items[2].line == 4 and "invalid JSON" in items[2].message
    assert items[3] == JsonLine(5, {"c": "中"})


def test_the_parsers_length_limits_are_the_databases():
    from annotation.importing.questions import DIMENSION_MAX, QUESTION_ID_MAX, SCENE_MAX
    from annotation.models import Ability, Case, Scenario

    assert Case._meta.get_field("external_id").max_length == QUESTION_ID_MAX
    assert Ability._meta.get_field("label").max_length == DIMENSION_MAX
    assert Scenario._meta.get_field("primary").max_length == SCENE_MAX
    assert Scenario._meta.get_field("secondary").max_length == SCENE_MAX
