import csv
import io
import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import RESEARCHER
from accounts.services import user_create_with_role
from annotation.models import ReviewRound, Vote
from judging.models import JudgeRun, JudgeTask
from leaderboard.exports.headers import SCORES_HEADER, TIDY_HEADER, VERDICTS_HEADER, VOTES_HEADER
from leaderboard.exports.tables import case_score_rows, verdict_rows, votes_rows
from leaderboard.exports.tidy import tidy_rows
from leaderboard.report.selectors.agreement import rater_pseudonyms
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)
from tests.leaderboard.test_page_queries import build

pytestmark = pytest.mark.django_db

USERNAMES = ("e0", "e1", "e2")


@pytest.fixture
def researcher():
    return user_create_with_role(username="researcher", password="x-pass-123", role=RESEARCHER)


def _download(client, round_, run, kind="tidy", fmt="csv", **extra):
    url = reverse("export-download", args=["hb", kind, fmt])
    return client.get(url, {"round": round_.pk, "run": run.pk, **extra})


def _csv(response) -> list[dict]:
    body = b"".join(response.streaming_content).decode("utf-8")
    assert not body.startswith("\ufeff")
    return list(csv.DictReader(io.StringIO(body)))


def _row(rows, question_id, position, rater):
    (found,) = [
        r
        for r in rows
        if r["question_id"] == question_id
        and r["criterion_position"] == str(position)
        and r["rater"] == rater
    ]
    return found


def test_the_tidy_file_has_one_row_per_item_criterion_and_rater(data, researcher):  # noqa: F811
    round_, run = data
    response = _download(client_for(researcher), round_, run)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = _csv(response)
    assert list(rows[0]) == list(TIDY_HEADER)
    assert len(rows) == 2 * 4 * 3
    names = rater_pseudonyms(round_=round_)
    e01, e02, e03 = (names[round_.experts.get(username=u).pk] for u in USERNAMES)
    assert {r["rater"] for r in rows} == {e01, e02, e03}

    # c1, criterion 1: experts 1 1 1, judge 1.
    first = _row(rows, "c1", 1, e01)
    assert first["benchmark"] == "hb" and first["round"] == "R"
    assert first["judge_run"] == str(run.pk) and first["system"] == "Sys"
    assert first["difficulty"] == "normal" and first["primary_scene"] == "职场心理"
    assert first["ability"] == "情绪感知" and first["weight"] == "3"
    assert first["rater_hit"] == "1" and first["rater_seconds"] == "10"
    assert (first["consensus"], first["consensus_votes"]) == ("1", "3")
    assert (first["judge_hit"], first["judge_status"]) == ("1", "done")
    # c1, criterion 3: experts 0 0 1 (the third is the one hit), judge 1.
    assert _row(rows, "c1", 3, e02)["rater_hit"] == "0"
    third = _row(rows, "c1", 3, e03)
    assert (third["rater_hit"], third["consensus"], third["judge_hit"]) == ("1", "0", "1")
    assert third["weight"] == "-10"
    # c2, criterion 4 (catastrophic, no weight): experts 0 1 1, judge 1; hard case.
    last = _row(rows, "c2", 4, e01)
    assert (last["rater_hit"], last["consensus"], last["judge_hit"]) == ("0", "1", "1")
    assert last["weight"] == "" and last["is_catastrophic"] == "1"
    assert last["difficulty"] == "hard"


def test_downloads_are_byte_identical_and_name_no_expert(data, researcher):  # noqa: F811
    round_, run = data
    client = client_for(researcher)
    for kind in ("tidy", "votes", "verdicts", "scores"):
        for fmt in ("csv", "jsonl"):
            first = b"".join(_download(client, round_, run, kind, fmt).streaming_content)
            second = b"".join(_download(client, round_, run, kind, fmt).streaming_content)
            assert first == second and first, (kind, fmt)
            if fmt == "csv":
                cells = [c for row in csv.reader(io.StringIO(first.decode())) for c in row]
            else:
                cells = [
                    str(v)
                    for line in first.decode().splitlines()
                    for v in json.loads(line).values()
                ]
            assert not set(cells) & set(USERNAMES), kind
    votes = _csv(_download(client, round_, run, "votes"))
    assert votes and all(re.fullmatch(r"E-[A-Z2-9]{4}", r["rater"]) for r in votes)


def test_experts_get_403_and_anonymous_users_the_login_page(data):  # noqa: F811
    round_, run = data
    expert = round_.experts.order_by("pk").first()
    assert _download(client_for(expert), round_, run).status_code == 403
    page = reverse("exports", args=["hb"])
    assert client_for(expert).get(page).status_code == 403
    anonymous = _download(client_for(None), round_, run)
    assert anonymous.status_code == 302 and "login" in anonymous["Location"]


def test_the_page_lists_the_downloads(data, researcher):  # noqa: F811
    round_, run = data
    page = reverse("exports", args=["hb"])
    chosen = client_for(researcher).get(page, {"round": round_.pk, "run": run.pk})
    assert f"?round={round_.pk}&amp;run={run.pk}" in chosen.content.decode()
    response = client_for(researcher).get(reverse("exports", args=["hb"]))
    assert response.status_code == 200
    assert reverse("export-download", args=["hb", "tidy", "csv"]) in response.content.decode()


def test_failed_judge_tasks_are_marked_failed_never_a_number(data):  # noqa: F811
    round_, run = data
    task = JudgeTask.objects.get(run=run, case__external_id="c2")
    JudgeTask.objects.filter(pk=task.pk).update(status=JudgeTask.Status.FAILED)  # verdicts stay
    tidy = [dict(zip(TIDY_HEADER, row, strict=True)) for row in tidy_rows(round_=round_, run=run)]
    failed = [r for r in tidy if r["question_id"] == "c2"]
    assert len(failed) == 12
    assert all(r["judge_status"] == "failed" and r["judge_hit"] is None for r in failed)
    assert all(r["judge_reasoning"] is None for r in failed)
    header = (*SCORES_HEADER, "ability:情绪感知")
    scores = [
        dict(zip(header, row, strict=False))
        for row in case_score_rows(run=run, profile="heartbench", abilities=["情绪感知"])
    ]
    by_case = {r["question_id"]: r for r in scores}
    assert by_case["c2"]["status"] == "failed" and by_case["c2"]["case_score"] is None
    assert by_case["c2"]["ability:情绪感知"] is None
    assert isinstance(by_case["c1"]["case_score"], float)
    assert isinstance(by_case["c1"]["ability:情绪感知"], float)
    verdicts = [dict(zip(VERDICTS_HEADER, r, strict=True)) for r in verdict_rows(run=run)]
    assert {r["task_status"] for r in verdicts if r["question_id"] == "c2"} == {"failed"}


def test_a_response_without_votes_appears_once_per_criterion(data):  # noqa: F811
    round_, run = data
    Vote.objects.filter(assignment__item__response__case__external_id="c2").delete()
    rows = [dict(zip(TIDY_HEADER, r, strict=True)) for r in tidy_rows(round_=round_, run=run)]
    empty = [r for r in rows if r["question_id"] == "c2"]
    assert len(empty) == 4 and len(rows) == 4 * 3 + 4
    assert all(r["rater"] is None and r["consensus"] == "none" for r in empty)
    assert all(r["consensus_votes"] == 0 and r["judge_status"] == "done" for r in empty)


def test_votes_rows_list_every_vote(data):  # noqa: F811
    round_, _ = data
    rows = [dict(zip(VOTES_HEADER, r, strict=True)) for r in votes_rows(round_=round_)]
    assert len(rows) == 2 * 4 * 3 and all(r["is_current"] == 1 for r in rows)


def test_the_tidy_query_count_does_not_grow_with_the_round():
    counts, sizes = [], []
    for slug, cases in (("small", 2), ("large", 9)):
        round_, run = build(slug, cases)
        round_ = ReviewRound.objects.get(pk=round_.pk)
        run = JudgeRun.objects.get(pk=run.pk)
        with CaptureQueriesContext(connection) as queries:
            sizes.append(len(list(tidy_rows(round_=round_, run=run))))
        counts.append(len(queries))
    assert sizes == [2 * 4 * 3, 9 * 4 * 3]
    assert counts[0] == counts[1] <= 8, counts


def test_paging_through_the_items_changes_nothing(data, monkeypatch):  # noqa: F811
    round_, run = data
    whole = list(tidy_rows(round_=round_, run=run))
    monkeypatch.setattr("leaderboard.exports.tidy.CHUNK_SIZE", 1)
    assert list(tidy_rows(round_=round_, run=run)) == whole
