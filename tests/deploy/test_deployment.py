"""The deployment guide (docs/deployment.md), followed to the letter on this machine.

Its marked blocks run as written, in bash, with production settings and an environment
holding exactly the variables the deployment guide's environment file lists: a fresh database and
role are created, migrated and filled with static files, gunicorn serves the site, a Celery
worker started with the documented command line does a judge run against the simulator,
and the database is dumped and restored into another fresh database with the same rows.

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, allowed to create roles and databases)
and Redis (CELERY_BROKER_URL, default redis://127.0.0.1:6379/10); `.ci/run` runs it in its
deploy stage. The databases and the role are named concord_h5_* and dropped at the end.
"""

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

try:
    import httpx
except ImportError:  # the environment ships the client under its new name
    import httpx2 as httpx

from tests.deploy.guide import ROOT, deployment_blocks, environment_names, script

pytestmark = pytest.mark.deploy

ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
STEP_TIMEOUT = 300


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run(command: list[str], env: dict[str, str], *, timeout: float = STEP_TIMEOUT) -> str:
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, (
        f"{command[-1][:300]}\nexit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def background(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_until(condition, *, timeout: float, what: str, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.3)
    tail = log.read_text(errors="replace")[-3000:] if log else ""
    raise AssertionError(f"timed out after {timeout} s waiting for {what}\n{tail}")


def row_counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
            )
        ]
        return {
            table: conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] for table in tables
        }


def admin_execute(*statements: str) -> None:
    with psycopg.connect(ADMIN, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


@pytest.fixture
def blocks() -> dict[str, str]:
    found = deployment_blocks()
    expected = {
        "database",
        "install",
        "environment",
        "migrate",
        "web",
        "worker",
        "health",
        "backup",
        "restore",
    }
    assert set(found) == expected, "the deployment guide's blocks changed: update this test"
    return found


@pytest.fixture
def deployment(tmp_path, blocks):
    """The environment of both machines (here one), with a role and database names of its
    own; drops whatever the steps created."""
    tag = secrets.token_hex(4)
    db_name, db_user = f"concord_h5_{tag}", f"concord_h5_{tag}_role"
    values = {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "CSRF_TRUSTED_ORIGINS": "https://127.0.0.1",
        "DB_USER": db_user,
        "DB_PASSWORD": secrets.token_hex(12),
        "DB_NAME": db_name,
        "DB_HOST": "127.0.0.1",
        "CELERY_BROKER_URL": os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/10"),
        "CONCORD_VAR_DIR": str(tmp_path / "var"),
        "WEB_BIND": f"127.0.0.1:{free_port()}",
        "NUM_PROXIES": "1",
        "LOG_FORMAT": "json",
        "OPENAI_API_KEY": "sk-deploy-test-not-a-real-key",
        # The bundled simulator stands in for the provider, on this machine's loopback.
        "CONCORD_JUDGE_BASE_URLS": "127.0.0.1",
        "CONCORD_JUDGE_ALLOW_PRIVATE_URLS": "true",
    }
    values["DATABASE_URL"] = (
        f"postgres://{db_user}:{values['DB_PASSWORD']}@127.0.0.1:5432/{db_name}"
    )
    assert set(values) == environment_names(blocks["environment"]), (
        "the deployment guide's environment file and this test set different variables"
    )
    assert values["CELERY_BROKER_URL"].startswith("redis://")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "LANG": "C.UTF-8",
        # The `postgres` user's session of the guide: libpq's own variables.
        "PGHOST": "127.0.0.1",
        "PGUSER": "postgres",
        "DJANGO_SUPERUSER_PASSWORD": secrets.token_urlsafe(16),
        **values,
    }
    (tmp_path / "var").mkdir()
    yield env
    admin_execute(
        f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)',
        f'DROP DATABASE IF EXISTS "{db_name}_restored" WITH (FORCE)',
        f'DROP ROLE IF EXISTS "{db_user}"',
    )


def test_the_two_machine_deployment_works_as_documented(deployment, blocks, tmp_path):
    env = deployment
    processes: list[subprocess.Popen] = []
    try:
        # Machine A: database, tables, static files, first user.
        run(script(blocks["database"]), env)
        migrated = run(script(blocks["migrate"]), env)
        assert "System check identified no issues" in migrated
        manifest = json.loads(
            (Path(env["CONCORD_VAR_DIR"]) / "staticfiles" / "staticfiles.json").read_text()
        )
        css = manifest["paths"]["concord/base.css"]

        web_log = tmp_path / "web.log"
        processes.append(background(script(blocks["web"]), env, web_log))
        base = f"http://{env['WEB_BIND']}"
        client = httpx.Client(base_url=base, trust_env=False, timeout=10)

        def healthy():
            try:
                return client.get("/healthz").status_code == 200
            except httpx.HTTPError:
                return False

        wait_until(healthy, timeout=60, what="gunicorn to answer /healthz", log=web_log)
        health = json.loads(run(script(blocks["health"]), env))
        assert health == {"status": "ok", "down": [], "database": "ok", "broker": "ok"}

        # Plain HTTP is sent to HTTPS; behind the proxy the pages and static files work.
        assert client.get("/login/").status_code == 301
        https = {"X-Forwarded-Proto": "https"}
        login = client.get("/login/", headers=https)
        assert login.status_code == 200 and f"/static/{css}" in login.text
        static = client.get(f"/static/{css}", headers=https)
        assert static.status_code == 200 and "max-age=315360000" in static.headers["cache-control"]
        assert (
            client.get("/no-such-page/", headers={**https, "X-Request-ID": "deploy-1"}).status_code
            == 404
        )
        # Django's line about the 404, as JSON, with the request id the proxy sent.
        logged = wait_until(
            lambda: [
                json.loads(line)
                for line in web_log.read_text(errors="replace").splitlines()
                if line.startswith("{") and "Not Found: /no-such-page/" in line
            ],
            timeout=10,
            what="the JSON log line of the 404",
            log=web_log,
        )
        assert logged[0]["request_id"] == "deploy-1" and logged[0]["level"] == "WARNING"

        # Behind the proxy, an attacker's failed sign-ins pause their own address only.
        run(
            [
                sys.executable,
                "manage.py",
                "shell",
                "-c",
                "from django.contrib.auth import get_user_model; "
                "get_user_model().objects.create_user(username='owner', password='owner-pass-9')",
            ],
            env,
        )
        form = client.get("/login/", headers=https)
        token = form.cookies["csrftoken"]
        origin = "https://127.0.0.1"

        def sign_in(password: str, address: str) -> int:
            answer = httpx.post(
                f"{base}/login/",
                data={"username": "owner", "password": password, "csrfmiddlewaretoken": token},
                headers={
                    **https,
                    "X-Forwarded-For": address,
                    "Origin": origin,
                    "Referer": origin + "/login/",
                },
                cookies={"csrftoken": token},
                trust_env=False,
            )
            return answer.status_code

        assert [sign_in("guess", "203.0.113.5") for _ in range(5)] == [200] * 4 + [429]
        assert sign_in("owner-pass-9", "203.0.113.5") == 429
        assert sign_in("owner-pass-9", "198.51.100.7") == 302

        # Machine B: a worker with the documented command line does a judge run.
        run([sys.executable, "manage.py", "load_demo"], env)
        simulator_port = free_port()
        processes.append(
            background(
                [
                    sys.executable,
                    "-m",
                    "judging.simulator",
                    "--port",
                    str(simulator_port),
                    "--quiet",
                ],
                env,
                tmp_path / "simulator.log",
            )
        )
        worker_log = tmp_path / "worker.log"
        processes.append(background(script(blocks["worker"]), env, worker_log))
        wait_until(
            lambda: "ready." in worker_log.read_text(errors="replace"),
            timeout=60,
            what="the Celery worker",
            log=worker_log,
        )
        summary = json.loads(
            run(
                [
                    sys.executable,
                    "manage.py",
                    "judge",
                    "--benchmark",
                    "demo",
                    "--system",
                    "Model Alpha",
                    "--base-url",
                    f"http://127.0.0.1:{simulator_port}/v1",
                    "--model",
                    "concord-sim",
                    "--concurrency",
                    "4",
                    "--via-workers",
                    "--json",
                ],
                env,
            )
        )
        assert summary["tasks"] > 0
        assert summary["done"] == summary["tasks"] and summary["failed"] == 0
        assert "judge@" in worker_log.read_text(errors="replace")
    finally:
        for process in reversed(processes):
            stop(process)

    # Backup, then restore into a fresh database: every table has the same rows.
    run(script(blocks["backup"], blocks["restore"]), env)
    original = row_counts(env["DATABASE_URL"])
    restored = row_counts(env["DATABASE_URL"] + "_restored")
    assert original == restored
    assert original["judging_verdict"] > 0 and original["auth_user"] > 0
    assert list((Path(env["CONCORD_VAR_DIR"]) / "backups").glob("concord-*.dump"))


def test_the_install_commands_build_a_working_environment(blocks, tmp_path):
    """The install block, in an empty folder holding only the requirements: the packages
    come from the registry (pip's cache makes later runs quick)."""
    if shutil.which("python3.11") is None:
        pytest.fail("python3.11 is not on PATH: the deployment guide's install step needs it")
    shutil.copy(ROOT / "requirements.txt", tmp_path / "requirements.txt")
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", str(tmp_path))}
    done = subprocess.run(
        script(blocks["install"]),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    python = tmp_path / ".venv" / "bin" / "python"
    versions = subprocess.run(
        [
            str(python),
            "-c",
            "import django, celery, gunicorn, psycopg, whitenoise; print(django.__version__)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    pinned = re.search(r"^Django==(\S+)$", (ROOT / "requirements.txt").read_text(), re.MULTILINE)
    assert versions == pinned.group(1)
