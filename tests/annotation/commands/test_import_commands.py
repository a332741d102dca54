import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Case, Response
from tests.conftest import jsonl_bytes, question, table_counts

pytestmark = pytest.mark.django_db


def write(tmp_path, name, rows) -> str:
    path = tmp_path / name
    path.write_bytes(jsonl_bytes(rows))
    return str(path)


def test_import_benchmark_json_prints_one_object(tmp_path, capsys):
    path = write(tmp_path, "q.jsonl", [question("c1"), question("c2")])
    call_command("import_benchmark", path, "--benchmark", "hb", "--json")
    out = capsys.readouterr().out
    assert json.loads(out) == {
        "cases": 2,
        "criteria": 8,
        "rubric_versions_created": 2,
        "responses": 0,
        "cases_created": 2,
        "cases_updated": 0,
        "warnings": [],
    }
    call_command("import_benchmark", path, "--benchmark", "hb", "--json")
    assert json.loads(capsys.readouterr().out)["rubric_versions_created"] == 0


def test_import_responses_json_prints_one_object(tmp_path, capsys):
    call_command(
        "import_benchmark", write(tmp_path, "q.jsonl", [question("c1")]), "--benchmark", "hb"
    )
    capsys.readouterr()
    path = write(tmp_path, "a.jsonl", [{"question_id": "c1", "response": "我在听。"}])
    call_command("import_responses", path, "--benchmark", "hb", "--system", "M", "--json")
    summary = json.loads(capsys.readouterr().out)
    assert summary["responses"] == 1 and summary["warnings"] == []
    assert Response.objects.get().system.name == "M"


def test_a_rejected_file_fails_the_command_with_line_and_field(tmp_path):
    path = write(tmp_path, "q.jsonl", [question("c1"), {**question("c2"), "rubric": []}])
    before = table_counts()
    with pytest.raises(CommandError) as caught:
        call_command("import_benchmark", path, "--benchmark", "hb")
    assert "nothing was imported" in str(caught.value)
    assert "line 2, field 'rubric': must not be empty" in str(caught.value)
    assert table_counts() == before
    assert not Case.objects.exists()


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_benchmark", str(tmp_path / "missing.jsonl"), "--benchmark", "hb")


def test_unknown_benchmark_for_responses_is_named(tmp_path):
    path = write(tmp_path, "a.jsonl", [{"question_id": "c1", "response": "x"}])
    with pytest.raises(CommandError, match="no benchmark with slug 'nope'"):
        call_command("import_responses", path, "--benchmark", "nope", "--system", "M")


def test_a_rejected_file_still_prints_one_json_object(tmp_path, capsys):
    path = write(tmp_path, "q.jsonl", [b"\xff"])
    with pytest.raises(CommandError, match="line 1: not valid UTF-8"):
        call_command("import_benchmark", path, "--benchmark", "hb", "--json")
    printed = json.loads(capsys.readouterr().out)
    assert printed["error"] == "rejected"
    assert printed["total"] == 1
