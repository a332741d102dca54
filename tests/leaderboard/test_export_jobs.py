"""Export jobs: the background file is the streamed download byte for byte, reruns are
harmless, and a disk-full or permission fault fails the job with its cause and leaves no file.

The faults are real: a tiny tmpfs filled up (ENOSPC), an immutable or read-only folder
(EPERM / EACCES), a folder whose parent is a regular file (ENOTDIR)."""

import errno
import hashlib
import os
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.roles import EXPERT, RESEARCHER
from accounts.services import user_create_with_role
from leaderboard.exports.services import export_job_run, export_jobs_revive
from leaderboard.models import ExportJob
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def researcher():
    return user_create_with_role(username="researcher", password="x-pass-123", role=RESEARCHER)


@pytest.fixture
def root(settings, tmp_path) -> Path:
    settings.EXPORT_ROOT = tmp_path / "exports"
    return settings.EXPORT_ROOT


def _prepare(client, capture, round_, run, kind="tidy", fmt="csv", **extra):
    """Ask for a job through the page's form; the queued task runs when the request commits."""
    form = {"kind": kind, "format": fmt, "round": round_.pk, "run": run.pk, **extra}
    with capture(execute=True):
        response = client.post(reverse("export-job-new", args=["hb"]), form)
    assert response.status_code == 302, response.content
    return ExportJob.objects.order_by("-pk").first()


def _streamed(client, round_, run, kind, fmt, **extra) -> bytes:
    url = reverse("export-download", args=["hb", kind, fmt])
    response = client.get(url, {"round": round_.pk, "run": run.pk, **extra})
    return b"".join(response.streaming_content)


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


@pytest.mark.parametrize(
    ("kind", "fmt", "extra"),
    [("tidy", "csv", {}), ("votes", "jsonl", {}), ("scores", "csv", {"profile": "heartbench"})],
)
def test_the_job_file_is_the_streamed_download_byte_for_byte(
    data,  # noqa: F811
    researcher,
    root,
    django_capture_on_commit_callbacks,
    kind,
    fmt,
    extra,
):
    round_, run = data
    client = client_for(researcher)
    job = _prepare(client, django_capture_on_commit_callbacks, round_, run, kind, fmt, **extra)
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE, job.error_message
    assert job.requested_by == researcher and job.attempts == 1

    streamed = _streamed(client, round_, run, kind, fmt, **extra)
    on_disk = (root / job.path).read_bytes()
    assert on_disk == streamed and streamed
    assert job.size == len(streamed)
    assert job.sha256 == hashlib.sha256(streamed).hexdigest()
    lines = streamed.count(b"\n")
    assert job.rows == (lines - 1 if fmt == "csv" else lines)
    assert _files(root) == [job.path]  # no temporary file left beside it

    download = client.get(reverse("export-job-download", args=["hb", job.pk]))
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == streamed
    assert job.filename in download["Content-Disposition"]

    page = client.get(reverse("exports", args=["hb"])).content.decode()
    assert reverse("export-job-download", args=["hb", job.pk]) in page
    assert 'hx-trigger="every 2s"' not in page  # nothing left to wait for: no polling


def test_the_tidy_job_has_the_chinese_text_and_stable_bytes(
    data,  # noqa: F811
    researcher,
    root,
    django_capture_on_commit_callbacks,
):
    round_, run = data
    client = client_for(researcher)
    first = _prepare(client, django_capture_on_commit_callbacks, round_, run)
    second = _prepare(client, django_capture_on_commit_callbacks, round_, run)
    assert first.path != second.path
    assert first.sha256 == second.sha256
    assert "情绪感知" in (root / first.path).read_text(encoding="utf-8")


def test_rerunning_a_finished_job_does_nothing(
    data,  # noqa: F811
    researcher,
    root,
    django_capture_on_commit_callbacks,
):
    round_, run = data
    job = _prepare(client_for(researcher), django_capture_on_commit_callbacks, round_, run)
    before = (root / job.path).stat()
    assert export_job_run(job_id=job.pk) == "skipped"
    job.refresh_from_db()
    assert job.attempts == 1 and job.status == ExportJob.Status.DONE
    assert (root / job.path).stat().st_mtime_ns == before.st_mtime_ns


def test_a_job_left_running_by_a_dead_worker_is_written_again(
    data,  # noqa: F811
    researcher,
    root,
):
    round_, run = data
    job = ExportJob.objects.create(
        benchmark=round_.benchmark, kind="tidy", format="csv", round=round_, run=run
    )
    # A worker claimed it, wrote half a file and died; its lease ran out a minute ago.
    folder = root / "hb"
    folder.mkdir(parents=True)
    name = f"{job.pk}-hb-tidy-round{round_.pk}-run{run.pk}.csv"
    leftover = folder / f".{name}.deadbeef.part"
    leftover.write_bytes(b"benchmark,round\nhb,")
    ExportJob.objects.filter(pk=job.pk).update(
        status=ExportJob.Status.RUNNING,
        claim="deadbeef",
        attempts=1,
        lease_until=timezone.now() - timedelta(minutes=1),
    )
    assert export_jobs_revive() == [job.pk]

    assert export_job_run(job_id=job.pk) == "done"
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE and job.attempts == 2
    assert _files(root) == [f"hb/{name}"]
    streamed = _streamed(client_for(researcher), round_, run, "tidy", "csv")
    assert (root / job.path).read_bytes() == streamed


def test_a_job_another_worker_is_writing_is_left_alone(data, root):  # noqa: F811
    round_, run = data
    job = ExportJob.objects.create(
        benchmark=round_.benchmark,
        kind="tidy",
        format="csv",
        round=round_,
        run=run,
        status=ExportJob.Status.RUNNING,
        claim="alive",
        attempts=1,
        lease_until=timezone.now() + timedelta(minutes=4),
    )
    assert export_jobs_revive() == []
    assert export_job_run(job_id=job.pk) == "skipped"
    job.refresh_from_db()
    assert (job.status, job.claim, job.attempts) == (ExportJob.Status.RUNNING, "alive", 1)


# --- faults -------------------------------------------------------------------------------


def _run_failing(round_, run) -> ExportJob:
    job = ExportJob.objects.create(
        benchmark=round_.benchmark, kind="tidy", format="csv", round=round_, run=run
    )
    assert export_job_run(job_id=job.pk) == "failed"
    job.refresh_from_db()
    assert job.status == ExportJob.Status.FAILED and not job.path
    assert job.rows is None and job.sha256 == ""
    return job


def _page_shows(researcher, job) -> str:
    client = client_for(researcher)
    page = client.get(reverse("exports", args=["hb"])).content.decode()
    assert f'id="export-job-{job.pk}"' in page
    assert reverse("export-job-download", args=["hb", job.pk]) not in page
    assert client.get(reverse("export-job-download", args=["hb", job.pk])).status_code == 404
    return page


@pytest.fixture
def full_disk(settings, tmp_path):
    """EXPORT_ROOT on a 64 KiB tmpfs filled to the last byte: writing gives ENOSPC."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {result.stderr.decode().strip()}")
    try:
        (mount / "exports" / "hb").mkdir(parents=True)
        with open(mount / "filler", "wb", buffering=0) as filler:
            try:
                while True:
                    filler.write(b"\0" * 4096)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
        settings.EXPORT_ROOT = mount / "exports"
        yield settings.EXPORT_ROOT
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_full_disk_fails_the_job_naming_the_cause(data, researcher, full_disk):  # noqa: F811
    round_, run = data
    job = _run_failing(round_, run)
    assert job.error_code == "ENOSPC"
    final = full_disk / "hb" / f"{job.pk}-hb-tidy-round{round_.pk}-run{run.pk}.csv"
    assert job.error_message == (
        f"The disk is full (no space left on device) while writing {final}."
    )
    assert _files(full_disk) == []  # the partial file is gone
    page = _page_shows(researcher, job)
    assert "no space left on device" in page and str(final) in page


@pytest.fixture
def read_only_folder(settings, tmp_path):
    """A folder the worker may not write into: mode 0555 for an ordinary user; for root,
    who ignores modes, the immutable attribute (chattr +i), which stops root too."""
    folder = tmp_path / "exports"
    (folder / "hb").mkdir(parents=True)
    if os.geteuid() != 0:
        (folder / "hb").chmod(0o555)
        undo = lambda: (folder / "hb").chmod(0o755)  # noqa: E731
    else:
        chattr = shutil.which("chattr")
        if chattr is None:
            pytest.skip("running as root and chattr is not installed")
        result = subprocess.run([chattr, "+i", str(folder / "hb")], capture_output=True)
        if result.returncode != 0:
            pytest.skip(f"running as root and chattr +i failed: {result.stderr.decode()}")
        undo = lambda: subprocess.run([chattr, "-i", str(folder / "hb")], check=True)  # noqa: E731
    try:
        probe = folder / "hb" / "probe"
        with pytest.raises(PermissionError):
            probe.write_bytes(b"x")
        settings.EXPORT_ROOT = folder
        yield folder
    finally:
        undo()


def test_a_folder_without_write_permission_fails_the_job(
    data,  # noqa: F811
    researcher,
    read_only_folder,
):
    round_, run = data
    job = _run_failing(round_, run)
    assert job.error_code in {"EACCES", "EPERM"}
    folder = read_only_folder / "hb"
    assert job.error_message.startswith(f"Permission denied: the worker may not write to {folder}")
    assert _files(read_only_folder) == []
    page = _page_shows(researcher, job)
    assert "Permission denied" in page and str(folder) in page


def test_an_export_folder_under_a_file_fails_the_job(
    data,  # noqa: F811
    researcher,
    settings,
    tmp_path,
):
    round_, run = data
    (tmp_path / "not-a-folder").write_text("a file")
    settings.EXPORT_ROOT = tmp_path / "not-a-folder" / "exports"
    job = _run_failing(round_, run)
    assert job.error_code == "ENOTDIR"
    assert str(tmp_path / "not-a-folder") in job.error_message
    assert "is a file, not a folder" in _page_shows(researcher, job)


# --- requests and permissions -------------------------------------------------------------


def test_bad_requests_say_what_is_wrong_and_create_nothing(data, researcher, root):  # noqa: F811
    round_, _run = data
    client = client_for(researcher)
    url = reverse("export-job-new", args=["hb"])
    unknown = client.post(url, {"kind": "everything", "format": "csv"}, HTTP_HX_REQUEST="true")
    assert unknown.status_code == 400
    assert "Unknown export everything" in unknown.content.decode()
    no_run = client.post(
        url, {"kind": "tidy", "format": "csv", "round": round_.pk}, HTTP_HX_REQUEST="true"
    )
    assert "needs a judge run" in no_run.content.decode()
    bad_format = client.post(url, {"kind": "votes", "format": "xlsx", "round": round_.pk})
    assert bad_format.status_code == 302
    page = client.get(bad_format["Location"]).content.decode()
    assert "Unknown format xlsx" in page
    assert not ExportJob.objects.exists()


def test_the_list_polls_while_a_job_is_unfinished(data, researcher, root):  # noqa: F811
    round_, _run = data
    job = ExportJob.objects.create(
        benchmark=round_.benchmark, kind="votes", format="csv", round=round_
    )
    fragment = client_for(researcher).get(reverse("export-jobs", args=["hb"]))
    body = fragment.content.decode()
    assert fragment.status_code == 200 and 'hx-trigger="every 2s"' in body
    assert f'id="export-job-{job.pk}"' in body and "queued" in body


def test_experts_cannot_prepare_list_or_download_jobs(
    data,  # noqa: F811
    researcher,
    root,
    django_capture_on_commit_callbacks,
):
    round_, run = data
    job = _prepare(client_for(researcher), django_capture_on_commit_callbacks, round_, run)
    expert = user_create_with_role(username="blind", password="x-pass-123", role=EXPERT)
    client = client_for(expert)
    form = {"kind": "tidy", "format": "csv", "round": round_.pk, "run": run.pk}
    assert client.post(reverse("export-job-new", args=["hb"]), form).status_code == 403
    assert client.get(reverse("export-jobs", args=["hb"])).status_code == 403
    download = reverse("export-job-download", args=["hb", job.pk])
    assert client.get(download).status_code == 403
    anonymous = client_for(None).get(download)
    assert anonymous.status_code == 302 and "login" in anonymous["Location"]
    assert ExportJob.objects.count() == 1
