"""Background imports: files above the size threshold are stored and imported by a worker
(run in-process here; tests/annotation/test_large_upload.py runs real gunicorn and Celery
processes). The import stays all-or-nothing, every job ends in a recorded outcome, and the
upload is removed once it has one."""

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from annotation.models import Benchmark, Case, ImportJob, Response
from annotation.services.benchmark_import import benchmark_import
from annotation.services.import_jobs import (
    STALE,
    _claim,
    import_job_run,
    import_jobs_revive,
)
from tests.conftest import client_for, jsonl_bytes, lines, question, table_counts

pytestmark = pytest.mark.django_db

THRESHOLD = 2000


@pytest.fixture
def root(settings, tmp_path) -> Path:
    settings.IMPORT_ROOT = tmp_path / "imports"
    settings.IMPORT_BACKGROUND_BYTES = THRESHOLD
    return settings.IMPORT_ROOT


def questions_file(count: int = 12, **overrides) -> bytes:
    data = jsonl_bytes([question(f"q{i:03d}", **overrides) for i in range(count)])
    assert len(data) > THRESHOLD
    return data


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def post_page(client, capture, data: bytes, *, slug="big", url="import-benchmark", **fields):
    form = {"benchmark": slug, "file": SimpleUploadedFile("大文件.jsonl", data), **fields}
    with capture(execute=True):
        return client.post(reverse(url), form, headers={"HX-Request": "true"})


def test_a_file_above_the_threshold_is_imported_by_a_job(
    root, coordinator, django_capture_on_commit_callbacks
):
    client = client_for(coordinator)
    data = questions_file()
    response = post_page(client, django_capture_on_commit_callbacks, data)
    assert response.status_code == 202
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.DONE and job.attempts == 1
    assert job.kind == "benchmark" and job.filename == "大文件.jsonl"
    assert job.size == len(data) == job.bytes_read and job.lines_read == 12
    assert job.summary["cases"] == 12 and job.summary["cases_created"] == 12
    assert job.requested_by == coordinator
    assert Case.objects.filter(benchmark__slug="big").count() == 12
    assert files(root) == []  # the upload is removed once the job has its outcome
    # The answer came before the worker ran (tests run the queued task when the request's
    # transaction commits): it shows the job, which the page then polls.
    assert f'hx-get="{reverse("import-job", args=[job.pk])}"' in response.content.decode()

    fragment = client.get(reverse("import-job", args=[job.pk]), headers={"HX-Request": "true"})
    body = fragment.content.decode()
    assert "Import finished" in body and "12 cases in the file, 12 new" in body
    assert 'hx-trigger="every 1s"' not in body  # finished: nothing to poll
    page = client.get(reverse("import-job", args=[job.pk]))
    assert page.status_code == 200 and "12 cases in the file, 12 new" in page.content.decode()
    listing = client.get(reverse("import")).content.decode()
    assert reverse("import-job", args=[job.pk]) in listing and "大文件.jsonl" in listing


def test_a_file_at_the_threshold_is_imported_in_the_request(
    root, coordinator, django_capture_on_commit_callbacks
):
    data = jsonl_bytes([question("q1")])
    assert len(data) <= THRESHOLD
    response = post_page(client_for(coordinator), django_capture_on_commit_callbacks, data)
    assert response.status_code == 200
    assert not ImportJob.objects.exists() and Case.objects.count() == 1


def test_a_rejected_background_import_writes_nothing_and_lists_the_errors(
    root, coordinator, django_capture_on_commit_callbacks
):
    rows = [question(f"q{i:03d}") for i in range(12)]
    rows[7] = question("q007", difficulty="extreme")
    rows[9] = question("a/b")
    before = table_counts()
    client = client_for(coordinator)
    response = post_page(client, django_capture_on_commit_callbacks, jsonl_bytes(rows))
    assert response.status_code == 202
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.REJECTED and job.error_total == 2
    after = table_counts()
    assert after.pop("annotation.ImportJob") == 1
    before.pop("annotation.ImportJob")
    assert after == before  # nothing of the file was written
    assert not Benchmark.objects.filter(slug="big").exists()
    body = client.get(reverse("import-job", args=[job.pk])).content.decode()
    assert "Nothing was imported" in body
    assert "line 8, field &#x27;difficulty&#x27;" in body
    assert "line 10, field &#x27;question_id&#x27;" in body
    assert files(root) == []


def test_the_api_answers_202_and_the_job_tells_its_outcome(
    root, coordinator, django_capture_on_commit_callbacks
):
    token = Token.objects.create(user=coordinator)
    client = client_for(None)
    auth = {"Authorization": f"Token {token.key}"}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/benchmarks/big/import/",
            {"file": SimpleUploadedFile("q.jsonl", questions_file())},
            headers=auth,
        )
    assert response.status_code == 202, response.content
    created = response.json()
    assert response["Location"] == f"/api/import-jobs/{created['id']}/"
    job = client.get(created["url"], headers=auth).json()
    assert job["status"] == "done" and job["summary"]["cases_created"] == 12
    assert job["lines_read"] == 12 and job["bytes_read"] == job["size"]
    assert job["errors"] is None and job["error"] is None
    listed = client.get("/api/import-jobs/", headers=auth).json()
    assert [j["id"] for j in listed] == [created["id"]]

    # A rejected answers file: the errors have the shape of a direct upload's 400.
    benchmark_import(chunks=lines(questions_file()), benchmark_slug="hb")
    answers = [{"question_id": f"q{i:03d}", "response": "回答" * 40} for i in range(12)]
    answers[3]["question_id"] = "missing"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/benchmarks/hb/responses/import/",
            {"file": SimpleUploadedFile("a.jsonl", jsonl_bytes(answers)), "system": "Gamma"},
            headers=auth,
        )
    assert response.status_code == 202, response.content
    job = client.get(response.json()["url"], headers=auth).json()
    assert job["status"] == "rejected" and job["error_total"] == 1
    assert job["errors"][0]["line"] == 4 and job["errors"][0]["field"] == "question_id"
    assert "unknown question_id 'missing'" in job["errors"][0]["text"]
    assert not Response.objects.exists()


def test_an_answers_file_for_an_unknown_benchmark_is_refused_at_once(
    root, coordinator, django_capture_on_commit_callbacks
):
    answers = jsonl_bytes([{"question_id": f"q{i}", "response": "回答" * 40} for i in range(12)])
    response = post_page(
        client_for(coordinator),
        django_capture_on_commit_callbacks,
        answers,
        slug="nope",
        url="import-responses",
        system="Gamma",
        kind="llm",
    )
    assert response.status_code == 400
    assert "There is no benchmark nope" in response.content.decode()
    assert not ImportJob.objects.exists() and files(root) == []


def test_an_unreachable_broker_records_nothing(root, coordinator, broker_down):
    client = client_for(coordinator)
    response = client.post(
        reverse("import-benchmark"),
        {"benchmark": "big", "file": SimpleUploadedFile("q.jsonl", questions_file())},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 400
    assert "The workers are not reachable" in response.content.decode()
    token = Token.objects.create(user=coordinator)
    response = client_for(None).post(
        "/api/benchmarks/big/import/",
        {"file": SimpleUploadedFile("q.jsonl", questions_file())},
        headers={"Authorization": f"Token {token.key}"},
    )
    assert response.status_code == 503 and "not reachable" in response.json()["detail"]
    assert not ImportJob.objects.exists() and files(root) == []


def queued_job(client, capture) -> ImportJob:
    """A job recorded and stored, whose task has not run (the commit hook is not run)."""
    with capture(execute=False):
        response = client.post(
            reverse("import-benchmark"),
            {"benchmark": "big", "file": SimpleUploadedFile("q.jsonl", questions_file())},
            headers={"HX-Request": "true"},
        )
    assert response.status_code == 202
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.QUEUED
    assert "Waiting for a background worker" in response.content.decode()
    assert 'hx-trigger="every 1s"' in response.content.decode()
    return job


def test_a_missing_upload_fails_the_job_with_its_cause(
    root, coordinator, django_capture_on_commit_callbacks
):
    client = client_for(coordinator)
    job = queued_job(client, django_capture_on_commit_callbacks)
    (root / job.upload).unlink()
    assert import_job_run(job_id=job.pk) == ImportJob.Status.FAILED
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED and job.error_code == "ENOENT"
    assert "no longer on the server" in job.error_message
    assert not Case.objects.exists()
    body = client.get(reverse("import-job", args=[job.pk])).content.decode()
    assert "no longer on the server" in body and "Nothing was imported" in body


def test_a_job_runs_once_and_a_dead_workers_job_is_taken_up(
    root, coordinator, django_capture_on_commit_callbacks
):
    client = client_for(coordinator)
    job = queued_job(client, django_capture_on_commit_callbacks)
    # A worker claimed it and died before its import committed: nothing of it remains.
    assert _claim(job.pk, "dead-worker") is not None
    assert import_job_run(job_id=job.pk) == "skipped"  # its lease still holds
    assert import_jobs_revive() == []
    ImportJob.objects.filter(pk=job.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert import_jobs_revive() == [job.pk]
    assert import_job_run(job_id=job.pk) == ImportJob.Status.DONE
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE and job.attempts == 2
    assert Case.objects.count() == 12
    # Running a finished job again changes nothing.
    assert import_job_run(job_id=job.pk) == "skipped"
    assert Case.objects.count() == 12 and files(root) == []


def test_a_running_job_whose_progress_moves_is_not_taken_over(
    root, coordinator, django_capture_on_commit_callbacks
):
    client = client_for(coordinator)
    job = queued_job(client, django_capture_on_commit_callbacks)
    assert _claim(job.pk, "slow-worker") is not None
    ImportJob.objects.filter(pk=job.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    progress = root / f"{job.upload}.progress"
    progress.write_text(json.dumps({"lines": 1000, "bytes": 4096}))
    assert import_jobs_revive() == []  # the worker is still reading
    job.refresh_from_db()
    page = client.get(reverse("import-job", args=[job.pk]), headers={"HX-Request": "true"})
    body = page.content.decode()
    assert "1,000 lines read (4.0\xa0KB of" in body and 'value="4096"' in body
    api = client.get(f"/api/import-jobs/{job.pk}/").json()
    assert api["status"] == "running" and api["lines_read"] == 1000
    stale = (timezone.now() - STALE - timedelta(seconds=5)).timestamp()
    import os

    os.utime(progress, (stale, stale))
    assert import_jobs_revive() == [job.pk]


def test_a_job_queued_long_ago_is_queued_again(
    root, coordinator, django_capture_on_commit_callbacks
):
    job = queued_job(client_for(coordinator), django_capture_on_commit_callbacks)
    assert import_jobs_revive() == []
    ImportJob.objects.filter(pk=job.pk).update(created=timezone.now() - timedelta(hours=1))
    assert import_jobs_revive() == [job.pk]


def test_a_large_split_file_keeps_its_difficulty_in_the_background(
    root, coordinator, django_capture_on_commit_callbacks
):
    rows = [question(f"h{i:03d}") for i in range(12)]
    for row in rows:
        del row["difficulty"]  # as in HeartBench's question_hard.jsonl
    data = jsonl_bytes(rows)
    assert len(data) > THRESHOLD
    client = client_for(coordinator)
    response = post_page(client, django_capture_on_commit_callbacks, data, difficulty="hard")
    assert response.status_code == 202
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.DONE, job.errors
    assert set(Case.objects.values_list("difficulty", flat=True)) == {"hard"}
