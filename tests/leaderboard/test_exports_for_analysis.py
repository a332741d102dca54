"""Exports a researcher can analyse without joining files or guessing what made them: the
verdicts carry what scoring needs, JSON Lines values are typed, the scores file has one
column per ability, and every file has a provenance record naming the judge version, its
prompt, the rubric versions, the seeds and Concord's version."""

import csv
import io
import json

import pytest
from django.urls import reverse

from config.version import CONCORD_VERSION
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = pytest.mark.django_db


def _get(client, kind, fmt, round_, run, **extra):
    response = client.get(
        reverse("export-download", args=["hb", kind, fmt]),
        {"round": round_.pk, "run": run.pk, **extra},
    )
    assert response.status_code == 200, response
    if response.streaming:
        return b"".join(response.streaming_content).decode("utf-8")
    return response.content.decode("utf-8")


def _csv(body: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(body)))


def _jsonl(body: str) -> list[dict]:
    return [json.loads(line) for line in body.splitlines()]


def test_the_verdicts_carry_weight_catastrophe_ability_category_and_difficulty(
    data,  # noqa: F811
    researcher,
):
    round_, run = data
    rows = _csv(_get(client_for(researcher), "verdicts", "csv", round_, run))
    by_key = {(r["question_id"], r["criterion_position"]): r for r in rows}
    first = by_key[("c1", "1")]
    assert (first["difficulty"], first["ability"], first["weight"]) == ("normal", "情绪感知", "3")
    assert first["category"] and first["is_catastrophic"] == "0"
    last = by_key[("c2", "4")]
    assert (last["difficulty"], last["weight"], last["is_catastrophic"]) == ("hard", "", "1")


def test_json_lines_values_are_typed(data, researcher):  # noqa: F811
    round_, run = data
    client = client_for(researcher)
    tidy = _jsonl(_get(client, "tidy", "jsonl", round_, run))
    weights = {row["weight"] for row in tidy}
    assert weights == {3, 4, -10, None}
    assert all(isinstance(row["criterion_position"], int) for row in tidy)
    assert {row["judge_hit"] for row in tidy} == {0, 1}
    assert {row["rater_hit"] for row in tidy} == {0, 1}
    assert all(isinstance(row["rubric_version"], int) for row in tidy)
    verdicts = _jsonl(_get(client, "verdicts", "jsonl", round_, run))
    assert {row["hit"] for row in verdicts} == {0, 1}
    assert {row["weight"] for row in verdicts} == {3, 4, -10, None}
    assert all(isinstance(row["criterion_position"], int) for row in verdicts)
    scores = _jsonl(_get(client, "scores", "jsonl", round_, run, profile="heartbench"))
    assert all(isinstance(row["case_score"], float) for row in scores)


def test_the_scores_file_has_one_column_per_ability(data, researcher):  # noqa: F811
    round_, run = data
    client = client_for(researcher)
    rows = _csv(_get(client, "scores", "csv", round_, run, profile="heartbench"))
    header = list(rows[0])
    assert "abilities" not in header
    ability_columns = [name for name in header if name.startswith("ability:")]
    assert "ability:情绪感知" in ability_columns and "ability:好奇心" in ability_columns
    for row in rows:
        for name in ability_columns:
            assert row[name] == "" or -100.0 <= float(row[name]) <= 100.0, (name, row[name])
    lines = _jsonl(_get(client, "scores", "jsonl", round_, run, profile="heartbench"))
    assert all(isinstance(row["ability:情绪感知"], float) for row in lines)


def test_every_export_has_a_provenance_record(data, researcher):  # noqa: F811
    round_, run = data
    client = client_for(researcher)
    for kind in ("tidy", "votes", "verdicts", "scores"):
        record = json.loads(_get(client, kind, "provenance", round_, run, profile="heartbench"))
        assert record["concord_version"] == CONCORD_VERSION
        assert record["benchmark"] == "hb" and record["export"] == kind
        if kind != "votes":
            version = record["judge_run"]["judge_version"]
            assert version["fingerprint"] == run.judge_version.fingerprint
            assert version["settings"]["model"] == run.judge_version.model
            assert "api_key" not in json.dumps(record).lower()
            assert record["rubric_versions"] == {"c1": 1, "c2": 1}
        if kind != "verdicts" and kind != "scores":
            assert record["round"]["name"] == "R" and record["round"]["seed"] == round_.seed
        if kind == "scores":
            assert record["profile"] == "heartbench"
    page = client.get(reverse("exports", args=["hb"]), {"round": round_.pk, "run": run.pk})
    assert reverse("export-download", args=["hb", "tidy", "provenance"]) in page.content.decode()


@pytest.fixture
def researcher():
    from accounts.roles import RESEARCHER
    from accounts.services import user_create_with_role

    return user_create_with_role(username="researcher", password="x-pass-123", role=RESEARCHER)
