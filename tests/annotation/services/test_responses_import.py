import pytest

from annotation.importing.issues import ImportRejected
from annotation.models import Response, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import BenchmarkNotFound, responses_import
from tests.conftest import jsonl_bytes, lines, question, table_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def benchmark():
    benchmark_import(
        chunks=lines(jsonl_bytes([question("c1"), question("c2"), question("c3")])),
        benchmark_slug="hb",
    )


def run(rows, system="Model X", **kwargs):
    return responses_import(
        chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb", system_name=system, **kwargs
    )


def test_minimal_and_full_rows_are_read(benchmark):
    summary = run(
        [
            {"question_id": "c1", "response": "听起来你很累。"},
            {**question("c2"), "response": "能多说说吗？"},
        ],
        system_kind=System.Kind.HUMAN,
    )
    assert summary.as_dict() == {
        "responses": 2,
        "responses_created": 2,
        "unchanged": 0,
        "system_created": True,
        "failed_generations": 0,
        "warnings": [],
    }
    system = System.objects.get(name="Model X")
    assert system.kind == "human"
    assert Response.objects.get(case__external_id="c2").text == "能多说说吗？"


def test_reimporting_the_same_answers_changes_nothing(benchmark):
    rows = [{"question_id": "c1", "response": "a"}, {"question_id": "c2", "response": "b"}]
    run(rows)
    before = table_counts()
    summary = run(rows)
    assert (summary.responses, summary.responses_created, summary.unchanged) == (2, 0, 2)
    assert table_counts() == before


@pytest.mark.parametrize(
    ("second_line", "expected"),
    [
        (
            {"question_id": "nope", "response": "x"},
            "line 2, field 'question_id': unknown question_id 'nope'",
        ),
        (
            {"question_id": "c1", "response": "x"},
            "line 2, field 'question_id': duplicate question_id 'c1'",
        ),
        ({"question_id": "c2"}, "line 2, field 'response': missing"),
        (
            {"question_id": "c2", "response": 5},
            "line 2, field 'response': expected a string, got integer",
        ),
        (b"\xff\xfe", "line 2: not valid UTF-8"),
        (b'{"question_id": "c2", "response": ', "line 2: invalid JSON"),
    ],
)
def test_bad_answers_name_line_and_field_and_write_nothing(benchmark, second_line, expected):
    before = table_counts()
    with pytest.raises(ImportRejected) as caught:
        run(
            [
                {"question_id": "c1", "response": "好"},
                second_line,
                {"question_id": "c3", "response": "x"},
            ]
        )
    assert expected in str(caught.value)
    assert table_counts() == before
    assert not System.objects.filter(name="Model X").exists()


def test_a_different_answer_for_a_stored_response_is_refused(benchmark):
    run([{"question_id": "c1", "response": "原来的回答"}])
    before = table_counts()
    with pytest.raises(ImportRejected, match="already has a different response to 'c1'"):
        run([{"question_id": "c1", "response": "新的回答"}])
    assert table_counts() == before
    assert Response.objects.get().text == "原来的回答"


def test_an_unknown_benchmark_is_named(db):
    with pytest.raises(BenchmarkNotFound, match="no benchmark with slug 'hb'"):
        run([{"question_id": "c1", "response": "x"}])


def test_an_empty_answer_is_kept_with_a_warning(benchmark):
    summary = run([{"question_id": "c1", "response": "  "}])
    assert summary.warnings[0] == "line 1: the response is empty"
    assert summary.failed_generations == 1 and "left out of judge runs" in summary.warnings[1]
