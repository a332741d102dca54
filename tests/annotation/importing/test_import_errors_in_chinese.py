"""Import error lines under zh-hans are Chinese through and through: the words the parsers
put into their messages (JSON types, the JSON parser's reasons) are translated too."""

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotation.services.benchmark_import import benchmark_import
from tests.conftest import jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db

ENGLISH = re.compile(r"\b(?:Expecting|delimiter|integer|list|object|string|Unterminated)\b")


def error_lines(response) -> list[str]:
    return re.findall(r"<li>(.*?)</li>", response.content.decode(), re.S)


@pytest.fixture
def zh_client(coordinator):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(coordinator)
    return client


def test_benchmark_import_errors_are_chinese(zh_client):
    rows = [json.dumps(question("c1"), ensure_ascii=False), "not json", '{"a" 1}', '"abc']
    upload = SimpleUploadedFile("b.jsonl", ("\n".join(rows) + "\n").encode())
    response = zh_client.post(
        reverse("import-benchmark"), {"benchmark": "hb", "name": "HB", "file": upload}
    )
    assert response.status_code == 400
    found = error_lines(response)
    assert len(found) == 3, found
    for line in found:
        assert "JSON 无效" in line
        assert not ENGLISH.search(line), line


def test_responses_import_errors_are_chinese(zh_client):
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")
    answers = '{"question_id": 3, "response": "x"}\n[1]\n'
    upload = SimpleUploadedFile("a.jsonl", answers.encode())
    response = zh_client.post(
        reverse("import-responses"),
        {"benchmark": "hb", "system": "S", "kind": "llm", "file": upload},
    )
    found = error_lines(response)
    assert len(found) == 2, found
    for line in found:
        assert not ENGLISH.search(line), line
