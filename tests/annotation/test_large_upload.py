"""A 50 MB import through the import page and through the API, served by a real gunicorn
(sync workers, killed at their timeout as in the deployment) with a real Celery worker
process. Before background imports the request ran the whole import and died at the
timeout; now it answers 202 at once, the page and the API show the worker's progress, and
the job ends with the file imported.

The deployment runs gunicorn with --timeout 60; a 50 MB import takes 30-40 s of work on the
2-core reference host (and past 60 s on the slower one), so the server here gets a 20 s
timeout: shorter than the import, far longer than storing an upload."""

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
import uuid
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest
from rest_framework.authtoken.models import Token

from accounts.roles import COORDINATOR
from accounts.services import user_create_with_role
from annotation.models import Case, ImportJob
from config.celery import app as celery_app
from tests.conftest import celery_overrides
from tests.judging.workers import Broker, database_url, start_worker, stop, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.multiworker]

ROOT = Path(__file__).resolve().parents[2]
GUNICORN_TIMEOUT = 20
SIZE = 50 * 1000 * 1000
PASSWORD = "large-upload-123"
HTTPS = {"X-Forwarded-Proto": "https"}


def big_questions_file(size: int = SIZE) -> tuple[bytes, int]:
    """A question file of at least `size` bytes: (the bytes, the number of cases)."""
    rows, total, index = [], 0, 0
    while total < size:
        row = {
            "question_id": f"big{index:06d}",
            "difficulty": "hard" if index % 7 == 0 else "normal",
            "primary_scene": "职场心理",
            "secondary_scene": f"场景{index % 30}",
            "dialogue": [{"role": "A", "content": f"我最近压力很大（{index}），不知道该怎么办。"}],
            "rubric": [
                {
                    "dimension": ("情绪感知", "好奇心", "温暖", "主动性")[k % 4],
                    "score": (3, 4, -5, 2, 1)[k % 5],
                    "content": f"案例 {index} 标准 {k}：回应是否体现具体的理解与支持行为",
                }
                for k in range(10)
            ]
            + [{"dimension": "其他", "score": None, "content": "没有回应用户"}],
        }
        line = json.dumps(row, ensure_ascii=False).encode() + b"\n"
        rows.append(line)
        total += len(line)
        index += 1
    return b"".join(rows), index


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def stack(tmp_path, settings, monkeypatch):
    """gunicorn (production settings) and one Celery worker on the test database, sharing
    a broker and the import folder."""
    broker = Broker(tmp_path)
    if broker.url.startswith("redis://"):
        import redis

        redis.Redis.from_url(broker.url).flushdb()
    imports = tmp_path / "imports"
    monkeypatch.setenv("CONCORD_IMPORT_ROOT", str(imports))
    settings.IMPORT_ROOT = imports
    worker = start_worker(broker, "importer", tmp_path / "worker.log", 2)
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"DJANGO_ALLOW_ASYNC_UNSAFE"}},
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "large-upload-test-key-" + "z" * 40,
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker.url,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "CONCORD_VAR_DIR": str(tmp_path),
        "CONCORD_IMPORT_ROOT": str(imports),
        "LOG_FORMAT": "text",
    }
    # Production pages name their static files from the collected manifest.
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    log = (tmp_path / "gunicorn.log").open("w")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--timeout",
            str(GUNICORN_TIMEOUT),
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    overrides = {"broker_url": broker.url, "task_always_eager": False}
    if broker.options:
        overrides["broker_transport_options"] = broker.options
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "gunicorn.log").read_text()
                time.sleep(0.1)
        with celery_overrides(**overrides):
            celery_app._pool = None
            yield {"port": port, "tmp": tmp_path, "imports": imports}
    finally:
        stop(server)
        stop(worker)
        log.close()
        celery_app._pool = None


def call(port, method, path, *, headers=None, body: bytes | None = None, timeout=120):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers={**HTTPS, **(headers or {})})
        response = conn.getresponse()
        return response, response.read()
    finally:
        conn.close()


def multipart(fields: dict[str, str], file: bytes, filename: str) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + file
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def sign_in(port: int, username: str) -> dict[str, str]:
    """Headers of a signed-in browser session: its cookies and its CSRF token."""
    page, content = call(port, "GET", "/login/")
    assert page.status == 200, (page.status, content[:3000])
    jar = SimpleCookie()
    for header in page.headers.get_all("Set-Cookie") or []:
        jar.load(header)
    token = jar["csrftoken"].value
    origin = f"https://127.0.0.1:{port}"
    response, _ = call(
        port,
        "POST",
        "/login/",
        headers={
            "Origin": origin,
            "Referer": origin + "/login/",
            "Cookie": f"csrftoken={token}",
            "Content-Type": "application/x-www-form-urlencoded",
        },
        body=urlencode(
            {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token}
        ).encode(),
    )
    assert response.status == 302, response.status
    for header in response.headers.get_all("Set-Cookie") or []:
        jar.load(header)
    cookies = "; ".join(f"{name}={morsel.value}" for name, morsel in jar.items())
    return {"Cookie": cookies, "X-CSRFToken": jar["csrftoken"].value, "Origin": origin}


def follow(poll, *, total_bytes: int) -> list[int]:
    """Poll a job until it is finished; the bytes-read figures seen while it ran."""
    seen: list[int] = []

    def finished() -> bool:
        status, read = poll()
        if status == "running":
            seen.append(read)
        return status not in ("queued", "running")

    wait_for(finished, timeout=600, interval=0.25, message="the background import to finish")
    return seen


def test_a_50_mb_upload_through_the_page_and_the_api_is_imported_in_the_background(stack, settings):
    port = stack["port"]
    # A password hash the production settings (the server's) can check.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
    user_create_with_role(username="big-coord", password=PASSWORD, role=COORDINATOR)
    data, cases = big_questions_file()
    assert len(data) >= SIZE

    # The page, as the browser sends it (htmx, the session's CSRF token).
    session = sign_in(port, "big-coord")
    body, content_type = multipart({"benchmark": "big-page"}, data, "题目.jsonl")
    started = time.monotonic()
    response, content = call(
        port,
        "POST",
        "/import/benchmark/",
        headers={**session, "Content-Type": content_type, "HX-Request": "true"},
        body=body,
    )
    answered_in = time.monotonic() - started
    assert response.status == 202, (response.status, content[:500])
    page = content.decode()
    job_url = re.search(r'hx-get="(/import/jobs/(\d+)/)"', page)
    assert job_url, page[:2000]
    print(f"page: 202 after {answered_in:.1f} s")

    def page_poll():
        _, fragment = call(port, "GET", job_url.group(1), headers={**session, "HX-Request": "true"})
        text = fragment.decode()
        status = re.search(r'class="card import-job (\w+)"', text).group(1)
        value = re.search(r'<progress max="\d+" value="(\d+)"', text)
        return status, int(value.group(1)) if value else 0

    seen = follow(page_poll, total_bytes=len(data))
    job = ImportJob.objects.get(pk=int(job_url.group(2)))
    log = (stack["tmp"] / "worker.log").read_text()
    assert job.status == ImportJob.Status.DONE, (job.error_message, job.errors, log[-3000:])
    assert job.summary["cases_created"] == cases and job.bytes_read == len(data)
    assert any(0 < read < len(data) for read in seen), seen  # the page showed progress
    print(f"page: imported by the worker in {(job.finished - job.started).total_seconds():.1f} s")
    _, final = call(port, "GET", job_url.group(1), headers=session)
    assert f"{cases} cases in the file, {cases} new" in final.decode()
    assert Case.objects.filter(benchmark__slug="big-page").count() == cases

    # The API, with a token.
    token = Token.objects.create(user=job.requested_by).key
    body, content_type = multipart({"name": "Big"}, data, "questions.jsonl")
    started = time.monotonic()
    response, content = call(
        port,
        "POST",
        "/api/benchmarks/big-api/import/",
        headers={"Authorization": f"Token {token}", "Content-Type": content_type},
        body=body,
    )
    answered_in = time.monotonic() - started
    assert response.status == 202, (response.status, content[:500])
    created = json.loads(content)
    print(f"API: 202 after {answered_in:.1f} s")

    def api_job() -> dict:
        auth = {"Authorization": f"Token {token}"}
        _, text = call(port, "GET", f"/api/import-jobs/{created['id']}/", headers=auth)
        return json.loads(text)

    def api_poll():
        job = api_job()
        return job["status"], job["bytes_read"]

    seen = follow(api_poll, total_bytes=len(data))
    job = api_job()
    assert job["status"] == "done", job
    assert job["summary"]["cases_created"] == cases and job["lines_read"] == cases
    assert any(0 < read < len(data) for read in seen), seen
    assert Case.objects.filter(benchmark__slug="big-api").count() == cases
    # No upload left behind (the worker removes it just after recording the outcome).
    wait_for(lambda: not list(stack["imports"].iterdir()), timeout=30, message="clean-up")
