"""Export jobs through a real Celery worker process: asked for over the API with tasks not
run in-process, the worker writes the file and the job becomes ready with exactly the bytes
the streamed download gives; a starting worker takes up a job whose worker died. CI runs
this against PostgreSQL and Redis; locally it uses the folder broker."""

import hashlib
import json
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from accounts.roles import RESEARCHER
from accounts.services import user_create_with_role
from config.celery import app as celery_app
from leaderboard.models import ExportJob
from tests.conftest import celery_overrides
from tests.judging.workers import Broker, start_worker, stop, wait_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.multiworker]

READY_WITHIN_SECONDS = 120


def _forget_broker_connections() -> None:
    # The app keeps a pool of connections to the broker it used first; drop it so the
    # next message goes to the broker configured now.
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def broker(tmp_path, settings):
    """The test process and its worker share this broker; tasks go through it."""
    broker = Broker(tmp_path)
    if broker.url.startswith("redis://"):
        import redis

        redis.Redis.from_url(broker.url).flushdb()  # no leftovers from earlier runs
    overrides = {"broker_url": broker.url, "task_always_eager": False}
    if broker.options:
        overrides["broker_transport_options"] = broker.options
    settings.CELERY_TASK_ALWAYS_EAGER = False
    with celery_overrides(**overrides):
        _forget_broker_connections()
        yield broker
    _forget_broker_connections()


@pytest.fixture
def root(tmp_path, settings, monkeypatch):
    """One export folder for the test process and the worker (which reads the variable)."""
    folder = tmp_path / "exports"
    monkeypatch.setenv("CONCORD_EXPORT_ROOT", str(folder))
    settings.EXPORT_ROOT = folder
    return folder


@pytest.fixture
def researcher():
    user = user_create_with_role(username="worker-r", password="x-pass-123", role=RESEARCHER)
    # A token for the API, a session for the page's streamed download.
    client = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    client.force_login(user)
    return client


def streamed(client: Client, round_, run) -> bytes:
    url = reverse("export-download", args=["hb", "tidy", "csv"])
    response = client.get(url, {"round": round_.pk, "run": run.pk})
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def status_of(job_id: int) -> str:
    return ExportJob.objects.get(pk=job_id).status


def files(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_a_worker_process_writes_the_file_the_download_streams(
    data,  # noqa: F811
    broker,
    root,
    researcher,
    tmp_path,
):
    round_, run = data
    worker = start_worker(broker, "exporter", tmp_path / "worker.log", 2)
    try:
        body = {"kind": "tidy", "format": "csv", "round": round_.pk, "run": run.pk}
        created = researcher.post(
            "/api/benchmarks/hb/export-jobs/", json.dumps(body), content_type="application/json"
        )
        assert created.status_code == 201, created.content
        job_id = created.json()["id"]
        wait_for(
            lambda: status_of(job_id) not in ("queued", "running"),
            timeout=READY_WITHIN_SECONDS,
            message="the worker to finish the export",
        )
    finally:
        stop(worker)
    log = (tmp_path / "worker.log").read_text()
    job = researcher.get(f"/api/benchmarks/hb/export-jobs/{job_id}/").json()
    assert job["status"] == "done", (job, log[-3000:])
    assert "leaderboard.tasks.export_job_task[" in log and "succeeded" in log

    expected = streamed(researcher, round_, run)
    download = researcher.get(job["download_url"])
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == expected
    assert job["sha256"] == hashlib.sha256(expected).hexdigest()
    assert job["size"] == len(expected) and job["attempts"] == 1
    assert files(root) == [ExportJob.objects.get(pk=job_id).path]


def test_a_starting_worker_takes_up_a_job_whose_worker_died(
    data,  # noqa: F811
    broker,
    root,
    researcher,
    tmp_path,
):
    round_, run = data
    job = ExportJob.objects.create(
        benchmark=round_.benchmark, kind="tidy", format="csv", round=round_, run=run
    )
    # Its worker claimed it, wrote part of the file and died; the lease ran out since.
    folder = root / "hb"
    folder.mkdir(parents=True)
    name = f"{job.pk}-hb-tidy-round{round_.pk}-run{run.pk}.csv"
    (folder / f".{name}.deadbeef.part").write_bytes(b"benchmark,round\nhb,")
    ExportJob.objects.filter(pk=job.pk).update(
        status=ExportJob.Status.RUNNING,
        claim="deadbeef",
        attempts=1,
        started=timezone.now() - timedelta(minutes=10),
        lease_until=timezone.now() - timedelta(minutes=5),
    )
    # Nothing is queued for it: only the starting worker's own check can find it.
    worker = start_worker(broker, "restarted", tmp_path / "worker.log", 2)
    try:
        wait_for(
            lambda: status_of(job.pk) != "running",
            timeout=READY_WITHIN_SECONDS,
            message="the starting worker to take the job up",
        )
    finally:
        stop(worker)
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE, job.error_message
    assert job.attempts == 2 and job.claim != "deadbeef"
    assert files(root) == [f"hb/{name}"]  # the dead worker's partial file is gone
    assert (root / job.path).read_bytes() == streamed(researcher, round_, run)
