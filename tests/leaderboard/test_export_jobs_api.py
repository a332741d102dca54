"""Export jobs over the API: created, listed and fetched with a token; the file is the
streamed export byte for byte; bad requests name the parameter at fault; a broker that is
down is a 503 that creates nothing; only roles with the export permission get in."""

import hashlib
import json

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER
from accounts.services import user_create_with_role
from annotation.models import Benchmark
from annotation.services.benchmark_import import benchmark_import
from leaderboard.models import ExportJob
from tests.conftest import client_for, jsonl_bytes, lines, question
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = pytest.mark.django_db

LIST = "/api/benchmarks/hb/export-jobs/"


@pytest.fixture
def root(settings, tmp_path):
    settings.EXPORT_ROOT = tmp_path / "exports"
    return settings.EXPORT_ROOT


def token_client(role: str, username: str) -> Client:
    user = user_create_with_role(username=username, password="x-pass-123", role=role)
    token = Token.objects.create(user=user)
    return Client(HTTP_AUTHORIZATION=f"Token {token.key}")


def another_benchmark(slug: str) -> Benchmark:
    benchmark_import(chunks=lines(jsonl_bytes([question("x1")])), benchmark_slug=slug)
    return Benchmark.objects.get(slug=slug)


@pytest.fixture
def api():
    return token_client(RESEARCHER, "api-researcher")


def create(api: Client, capture, body: dict):
    with capture(execute=True):
        return api.post(LIST, json.dumps(body), content_type="application/json")


def streamed(round_, run, kind: str, fmt: str, **extra) -> bytes:
    browser = client_for(
        user_create_with_role(username="reader", password="x-pass-123", role=COORDINATOR)
    )
    url = reverse("export-download", args=["hb", kind, fmt])
    response = browser.get(url, {"round": round_.pk, "run": run.pk, **extra})
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def test_a_job_is_created_followed_and_fetched_over_the_api(
    data,  # noqa: F811
    api,
    root,
    django_capture_on_commit_callbacks,
):
    round_, run = data
    body = {"kind": "tidy", "format": "csv", "round": round_.pk, "run": run.pk}
    created = create(api, django_capture_on_commit_callbacks, body)
    assert created.status_code == 201, created.content
    # The task is queued once the request's transaction commits (here: when the capture
    # ends, after the answer), so the answer shows the job queued, without a file yet.
    assert created.json()["status"] == "queued"
    assert created.json()["download_url"] is None
    job = api.get(f"{LIST}{created.json()['id']}/").json()
    assert job["status"] == "done", job
    assert (job["kind"], job["format"], job["round"], job["run"]) == (
        "tidy",
        "csv",
        round_.pk,
        run.pk,
    )
    assert job["profile"] == "" and job["requested_by"] == "api-researcher"
    assert job["error"] is None and job["attempts"] == 1

    expected = streamed(round_, run, "tidy", "csv")
    assert job["size"] == len(expected)
    assert job["sha256"] == hashlib.sha256(expected).hexdigest()
    assert job["rows"] == expected.count(b"\n") - 1  # minus the header line
    assert "情绪感知" in expected.decode()

    file_url = f"/api/benchmarks/hb/export-jobs/{job['id']}/file"
    assert job["download_url"] == f"http://testserver{file_url}"
    assert job["filename"] == f"hb-tidy-round{round_.pk}-run{run.pk}.csv"
    download = api.get(file_url)
    assert download.status_code == 200
    assert download["Content-Type"] == "text/csv; charset=utf-8"
    assert job["filename"] in download["Content-Disposition"]
    assert b"".join(download.streaming_content) == expected
    # A client that asks for the file's own type gets it (not a 406).
    as_csv = api.get(file_url, HTTP_ACCEPT="text/csv")
    assert as_csv.status_code == 200 and b"".join(as_csv.streaming_content) == expected

    listed = api.get(LIST)
    assert listed.status_code == 200 and [j["id"] for j in listed.json()] == [job["id"]]


def test_a_scores_job_in_json_lines_keeps_its_profile(
    data,  # noqa: F811
    api,
    root,
    django_capture_on_commit_callbacks,
):
    round_, run = data
    body = {"kind": "scores", "format": "jsonl", "run": run.pk, "profile": "heartbench-code"}
    job_id = create(api, django_capture_on_commit_callbacks, body).json()["id"]
    job = api.get(f"{LIST}{job_id}/").json()
    assert (job["status"], job["profile"], job["round"]) == ("done", "heartbench-code", None)
    download = api.get(job["download_url"])
    assert download["Content-Type"] == "application/x-ndjson"
    expected = streamed(round_, run, "scores", "jsonl", profile="heartbench-code")
    assert b"".join(download.streaming_content) == expected
    assert job["rows"] == expected.count(b"\n")


def test_the_list_shows_the_newest_jobs_of_this_benchmark_only(data, api, root):  # noqa: F811
    round_, _run = data
    benchmark = round_.benchmark
    jobs = [
        ExportJob.objects.create(benchmark=benchmark, kind="votes", format="csv", round=round_)
        for _ in range(22)
    ]
    ExportJob.objects.create(benchmark=another_benchmark("other"), kind="votes", format="csv")
    listed = api.get(LIST).json()
    assert [j["id"] for j in listed] == [j.pk for j in reversed(jobs)][:20]
    assert {(j["status"], j["download_url"], j["filename"]) for j in listed} == {
        ("queued", None, None)
    }


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"kind": "everything", "format": "csv"}, "kind", '"everything" is not a valid choice.'),
        ({"kind": "votes", "format": "xlsx"}, "format", '"xlsx" is not a valid choice.'),
        ({"format": "csv"}, "kind", "This field is required."),
        ({"kind": "tidy", "format": "csv", "round": "R"}, "round", "A valid integer is required."),
        ({"kind": "votes", "format": "csv"}, "round", "This export needs a review round"),
        ({"kind": "verdicts", "format": "csv", "round": None}, "run", "needs a judge run"),
        ({"kind": "verdicts", "format": "csv", "run": 10**30}, "run", "No judge run 1000"),
        ({"kind": "scores", "format": "csv", "profile": "nope"}, "profile", "not a valid"),
    ],
)
def test_bad_requests_name_the_parameter_and_create_nothing(
    data,  # noqa: F811
    api,
    root,
    body,
    field,
    message,
):
    response = api.post(LIST, json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    errors = response.json()
    assert list(errors) == [field] and message in errors[field][0], errors
    assert not ExportJob.objects.exists()


def test_a_round_or_run_of_another_benchmark_is_refused(data, api, root):  # noqa: F811
    round_, run = data
    another_benchmark("other")
    url = "/api/benchmarks/other/export-jobs/"
    body = {"kind": "tidy", "format": "csv", "round": round_.pk, "run": run.pk}
    response = api.post(url, body)  # a form body, as the page sends it
    assert response.status_code == 400
    assert response.json() == {
        "round": [f"No review round {round_.pk} in this benchmark."],
        "run": [f"No judge run {run.pk} in this benchmark."],
    }
    assert api.post("/api/benchmarks/nowhere/export-jobs/", body).status_code == 404
    assert not ExportJob.objects.exists()


def test_an_unreachable_broker_is_a_503_naming_it_and_nothing_is_recorded(
    data,  # noqa: F811
    api,
    root,
    broker_down,
):
    round_, run = data
    body = {"kind": "tidy", "format": "csv", "round": round_.pk, "run": run.pk}
    response = api.post(LIST, json.dumps(body), content_type="application/json")
    assert response.status_code == 503
    detail = response.json()["detail"]
    assert detail.startswith("The workers are not reachable") and broker_down in detail
    assert "s3cret-pass" not in detail
    assert not ExportJob.objects.exists()


def test_the_file_is_there_only_while_the_job_is_ready(data, api, root):  # noqa: F811
    round_, _run = data
    queued = ExportJob.objects.create(
        benchmark=round_.benchmark, kind="votes", format="csv", round=round_
    )
    assert api.get(f"{LIST}{queued.pk}/file").status_code == 404
    # Ready on record, but the file is gone from the disk: a 404 with the reason.
    ExportJob.objects.filter(pk=queued.pk).update(status="done", path="hb/missing.csv")
    gone = api.get(f"{LIST}{queued.pk}/file")
    assert gone.status_code == 404
    assert gone.json() == {"detail": "The export file is no longer on the server."}
    # A job is found under its own benchmark only.
    another_benchmark("other")
    assert api.get(f"/api/benchmarks/other/export-jobs/{queued.pk}/").status_code == 404
    assert api.get(f"{LIST}{queued.pk + 1}/").status_code == 404


def test_experts_are_refused_and_anonymous_callers_must_sign_in(
    data,  # noqa: F811
    root,
    django_capture_on_commit_callbacks,
):
    round_, _run = data
    body = {"kind": "votes", "format": "csv", "round": round_.pk}
    job = create(token_client(COORDINATOR, "coord"), django_capture_on_commit_callbacks, body)
    job_id = job.json()["id"]
    urls = [LIST, f"{LIST}{job_id}/", f"{LIST}{job_id}/file"]
    for caller, expected in ((token_client(EXPERT, "blind"), 403), (Client(), 401)):
        for url in urls:
            assert caller.get(url).status_code == expected, url
        refused = caller.post(LIST, json.dumps(body), content_type="application/json")
        assert refused.status_code == expected
    assert ExportJob.objects.count() == 1
