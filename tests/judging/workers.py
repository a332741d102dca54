"""Real Celery worker processes for tests, sharing the test database and a broker."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.db import connection
from kombu import Connection

ROOT = Path(__file__).resolve().parents[2]


def database_url() -> str:
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings.get("USER") or "postgres"
    host = settings.get("HOST") or "127.0.0.1"
    port = settings.get("PORT") or 5432
    return f"postgres://{user}@{host}:{port}/{settings['NAME']}"


class Broker:
    """A broker the test and its workers share: Redis when CELERY_BROKER_URL names one,
    else a folder (the filesystem transport)."""

    def __init__(self, folder: Path) -> None:
        self.url = os.environ.get("CELERY_BROKER_URL", "filesystem://")
        self.folder = folder
        self.options = {}
        if self.url.startswith("filesystem://"):
            for name in ("broker", "broker-processed", "broker-control"):
                (folder / name).mkdir(parents=True, exist_ok=True)
            self.options = {
                "data_folder_in": str(folder / "broker"),
                "data_folder_out": str(folder / "broker"),
                "processed_folder": str(folder / "broker-processed"),
                "control_folder": str(folder / "broker-control"),
                "store_processed": False,
            }

    def connection(self) -> Connection:
        return Connection(self.url, transport_options=self.options)


def start_worker(broker: Broker, name: str, log: Path, concurrency: int = 4) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker.url,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "CONCORD_VAR_DIR": str(broker.folder),
    }
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool",
            "threads",
            "--concurrency",
            str(concurrency),
            "--hostname",
            f"{name}@%h",
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop(process: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if process.poll() is None:
        os.killpg(process.pid, sig)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_for(condition, *, timeout: float, interval: float = 0.2, message: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {message or condition}")
