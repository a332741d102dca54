"""Old export files: `exports_prune --older-than DAYS` deletes the files of jobs finished
before the cutoff and marks the jobs expired, so neither the page nor the API offers a
link to a file that is gone; newer files and unfinished jobs are left alone."""

import json
import os
import shutil
import subprocess
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from accounts.roles import RESEARCHER
from accounts.services import user_create_with_role
from leaderboard.exports.services import export_job_run
from leaderboard.models import ExportJob
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(settings, tmp_path) -> Path:
    settings.EXPORT_ROOT = tmp_path / "exports"
    return settings.EXPORT_ROOT


def finished_job(round_, *, days_ago: float) -> ExportJob:
    job = ExportJob.objects.create(
        benchmark=round_.benchmark, kind="votes", format="csv", round=round_
    )
    assert export_job_run(job_id=job.pk) == "done"
    ExportJob.objects.filter(pk=job.pk).update(finished=timezone.now() - timedelta(days=days_ago))
    job.refresh_from_db()
    return job


def prune(*args: str) -> str:
    out = StringIO()
    call_command("exports_prune", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_old_files_are_deleted_and_their_jobs_no_longer_offer_a_link(
    data,  # noqa: F811
    root,
):
    round_, _run = data
    old = finished_job(round_, days_ago=31)
    recent = finished_job(round_, days_ago=29)
    queued = ExportJob.objects.create(
        benchmark=round_.benchmark, kind="votes", format="csv", round=round_
    )
    ExportJob.objects.filter(pk=queued.pk).update(created=timezone.now() - timedelta(days=90))
    failed = ExportJob.objects.create(
        benchmark=round_.benchmark,
        kind="votes",
        format="csv",
        status=ExportJob.Status.FAILED,
        error_code="ENOSPC",
        finished=timezone.now() - timedelta(days=90),
    )
    old_file, recent_file = root / old.path, root / recent.path
    size = old_file.stat().st_size
    researcher = client_for(
        user_create_with_role(username="r", password="x-pass-123", role=RESEARCHER)
    )
    old_link = reverse("export-job-download", args=["hb", old.pk])
    assert old_link in researcher.get(reverse("exports", args=["hb"])).content.decode()

    assert prune("--older-than", "30") == (
        f"removed the files of 1 export job(s), {size} bytes freed\n"
    )

    assert not old_file.exists() and recent_file.exists()
    old.refresh_from_db()
    assert (old.status, old.path) == (ExportJob.Status.EXPIRED, "")
    assert old.sha256 and old.rows is not None  # the record of what it was stays
    statuses = dict(ExportJob.objects.values_list("pk", "status"))
    assert statuses[recent.pk] == "done"
    assert statuses[queued.pk] == "queued" and statuses[failed.pk] == "failed"

    page = researcher.get(reverse("exports", args=["hb"])).content.decode()
    assert old_link not in page and reverse("export-job-download", args=["hb", recent.pk]) in page
    assert f'id="export-job-{old.pk}"' in page and "file removed" in page
    assert researcher.get(old_link).status_code == 404
    api_view = researcher.get(f"/api/benchmarks/hb/export-jobs/{old.pk}/").json()
    assert (api_view["status"], api_view["download_url"]) == ("expired", None)
    assert researcher.get(f"/api/benchmarks/hb/export-jobs/{old.pk}/file").status_code == 404

    # A stale task message for the expired job does not write the file again.
    assert export_job_run(job_id=old.pk) == "skipped"
    assert not old_file.exists()
    # Pruning again finds nothing more; a shorter age takes the next file.
    assert prune("--older-than", "30").startswith("removed the files of 0 export job(s)")
    assert prune("--older-than", "0.5").startswith("removed the files of 1 export job(s)")
    assert not recent_file.exists()


def test_a_file_already_gone_still_expires_its_job(data, root):  # noqa: F811
    round_, _run = data
    job = finished_job(round_, days_ago=10)
    (root / job.path).unlink()
    assert prune("--older-than", "7") == "removed the files of 1 export job(s), 0 bytes freed\n"
    job.refresh_from_db()
    assert job.status == ExportJob.Status.EXPIRED


@pytest.mark.parametrize("value", ["-1", "x", "nan", "inf"])
def test_a_bad_age_is_refused_by_name(value):
    with pytest.raises(CommandError, match="--older-than: invalid number of days"):
        call_command("exports_prune", "--older-than", value)


@pytest.fixture
def undeletable(tmp_path):
    """Make a folder's entries undeletable: mode 0555 for an ordinary user; for root, who
    ignores modes, the immutable attribute (chattr +i)."""
    undo = []

    def lock(folder: Path) -> None:
        if os.geteuid() != 0:
            folder.chmod(0o555)
            undo.append(lambda: folder.chmod(0o755))
            return
        chattr = shutil.which("chattr")
        if chattr is None:
            pytest.skip("running as root and chattr is not installed")
        result = subprocess.run([chattr, "+i", str(folder)], capture_output=True)
        if result.returncode != 0:
            pytest.skip(f"running as root and chattr +i failed: {result.stderr.decode()}")
        undo.append(lambda: subprocess.run([chattr, "-i", str(folder)], check=True))

    yield lock
    for step in undo:
        step()


def test_a_file_that_cannot_be_deleted_keeps_its_job_and_is_reported(
    data,  # noqa: F811
    root,
    undeletable,
):
    round_, _run = data
    job = finished_job(round_, days_ago=10)
    undeletable((root / job.path).parent)
    errors = StringIO()
    with pytest.raises(CommandError, match="1 file\\(s\\) could not be removed"):
        call_command("exports_prune", "--older-than", "7", stdout=StringIO(), stderr=errors)
    assert f"export job {job.pk}: the file could not be removed" in errors.getvalue()
    assert str(root / job.path) in errors.getvalue()
    job.refresh_from_db()
    assert job.status == ExportJob.Status.DONE and (root / job.path).exists()


def test_json_gives_the_same_counts(data, root):  # noqa: F811
    round_, _run = data
    old = finished_job(round_, days_ago=31)
    size = (root / old.path).stat().st_size
    summary = json.loads(prune("--older-than", "30", "--json"))
    assert summary == {"jobs": 1, "bytes": size, "errors": []}
