"""HeartBench's split files (question_normal.jsonl, question_hard.jsonl) carry no
`difficulty` field: the split itself is the difficulty. The suite writes files in that
format and imports them the ways a researcher would."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Case
from tests.conftest import client_for, jsonl_bytes, question

pytestmark = pytest.mark.django_db


def official(question_id: str) -> dict:
    row = question(question_id)
    del row["difficulty"]
    return row


def write(tmp_path, name, rows) -> str:
    path = tmp_path / name
    path.write_bytes(jsonl_bytes(rows))
    return str(path)


def test_the_official_split_files_import_with_their_difficulty(tmp_path):
    normal = write(tmp_path, "question_normal.jsonl", [official("n1"), official("n2")])
    hard = write(tmp_path, "question_hard.jsonl", [official("h1")])
    call_command("import_benchmark", normal, "--benchmark", "hb", "--difficulty", "normal")
    call_command("import_benchmark", hard, "--benchmark", "hb", "--difficulty", "hard")
    assert dict(Case.objects.values_list("external_id", "difficulty")) == {
        "n1": "normal",
        "n2": "normal",
        "h1": "hard",
    }


def test_a_split_file_without_the_option_is_refused_with_the_way_out(tmp_path):
    path = write(tmp_path, "question_hard.jsonl", [official("h1")])
    with pytest.raises(CommandError) as caught:
        call_command("import_benchmark", path, "--benchmark", "hb")
    assert "field 'difficulty'" in str(caught.value)
    assert "--difficulty" in str(caught.value)
    assert not Case.objects.exists()


def test_a_row_that_contradicts_the_option_is_named(tmp_path):
    rows = [official("h1"), question("n1")]  # question() says "normal"
    path = write(tmp_path, "question_hard.jsonl", rows)
    with pytest.raises(CommandError) as caught:
        call_command("import_benchmark", path, "--benchmark", "hb", "--difficulty", "hard")
    assert "line 2, field 'difficulty'" in str(caught.value)
    assert not Case.objects.exists()


def test_an_unknown_difficulty_option_is_refused(tmp_path):
    path = write(tmp_path, "question_hard.jsonl", [official("h1")])
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("import_benchmark", path, "--benchmark", "hb", "--difficulty", "extreme")


def test_the_import_page_and_the_api_take_the_difficulty(coordinator):
    client = client_for(coordinator)
    upload = SimpleUploadedFile("question_hard.jsonl", jsonl_bytes([official("h1")]))
    page = client.post(
        reverse("import-benchmark"),
        {"benchmark": "hb", "name": "", "difficulty": "hard", "file": upload},
    )
    assert page.status_code == 200, page.content.decode()[:2000]
    upload = SimpleUploadedFile("question_normal.jsonl", jsonl_bytes([official("n1")]))
    api = client.post("/api/benchmarks/hb/import/", {"file": upload, "difficulty": "normal"})
    assert api.status_code == 200, api.content
    assert dict(Case.objects.values_list("external_id", "difficulty")) == {
        "h1": "hard",
        "n1": "normal",
    }
