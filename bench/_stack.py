"""The stack the load benchmarks run against: a fresh PostgreSQL database with a synthetic
benchmark, a round and experts, gunicorn on a loopback port, and the pieces that drive and
measure it (a CPU meter; the clients are in bench/_experts.py)."""

import argparse
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

try:
    import httpx
except ImportError:  # the environment ships the client under its new name
    import httpx2 as httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench._host import machine_ticks  # noqa: E402

DEFAULT_SERVER = "postgresql://postgres@127.0.0.1:5432"
PASSWORD = "review-load-Expert-2025"


# Database ------------------------------------------------------------------------------------


def recreate_database(server: str, name: str) -> None:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(server: str, name: str) -> None:
    import psycopg

    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def server_env(database_url: str, var_dir: Path, secret_key: str) -> dict[str, str]:
    """The environment of manage.py, of gunicorn and of this process's Django: local settings
    (no SSL redirect, no secure cookies: the bench speaks plain HTTP on the loopback) without
    DEBUG, which would keep every SQL statement in memory."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DATABASE_URL=database_url,
        SECRET_KEY=secret_key,
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="false",
        CONCORD_VAR_DIR=str(var_dir),
        LOG_LEVEL="WARNING",
    )
    return env


def migrate(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "migrate", "--verbosity", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )


def analyze() -> None:
    """Table statistics for the planner, as autovacuum gathers them within a minute of a
    bulk load: without them the first minute of load runs on plans made for empty tables."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def seed(args: argparse.Namespace) -> dict:
    """Benchmark, systems, experts and one open round; Django is set up in this process."""
    import django

    django.setup()
    from accounts.services import user_create_with_role
    from annotation.models import Criterion, Response
    from annotation.services.review_assignment import expert_share
    from annotation.services.review_rounds import round_open
    from bench._seeding import benchmark_seed

    benchmark, systems, rows = benchmark_seed(
        slug="review-load",
        cases=args.cases,
        criteria_per_case=args.criteria_per_case,
        systems=args.systems,
        padding="\n" + "我在这里陪着你。" * 20,
    )
    experts = [
        user_create_with_role(username=f"expert{i:03d}", password=PASSWORD, role="Expert")
        for i in range(args.experts)
    ]
    round_ = round_open(
        benchmark=benchmark,
        name="review load",
        systems=systems,
        experts=experts,
        fraction=args.fraction,
        raters_per_item=args.raters,
    )
    return {
        "round_id": round_.pk,
        "usernames": [e.username for e in experts],
        "cases": len(rows),
        "criteria": Criterion.objects.filter(rubric_version__case__benchmark=benchmark).count(),
        "responses": Response.objects.filter(case__benchmark=benchmark).count(),
        "items": round_.items.count(),
        "share": expert_share(round_),
    }


# Server --------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Gunicorn:
    def __init__(
        self, *, env: dict[str, str], workers: int, threads: int, keep_alive: int, log: Path
    ) -> None:
        self.port = free_port()
        self.concurrency = workers * threads * 2
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = log
        self.log = log.open("wb")
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            str(workers),
            "--threads",
            str(threads),
            "--timeout",
            "60",
            "--graceful-timeout",
            "5",
            "--keep-alive",
            str(keep_alive),
        ]
        if threads > 1:
            command += ["--worker-class", "gthread"]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )

    def wait_ready(self, timeout: float = 30.0) -> float:
        started = time.perf_counter()
        with httpx.Client(base_url=self.base_url, trust_env=False, timeout=5) as client:
            while time.perf_counter() - started < timeout:
                if self.process.poll() is not None:
                    break
                try:
                    if client.get("/login/").status_code == 200:
                        self._warm_up()
                        return time.perf_counter() - started
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
        tail = self.log_path.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"gunicorn did not answer within {timeout:g} s:\n{tail}")

    def _warm_up(self) -> None:
        """A burst of unrecorded requests, so that every worker has booted and served."""

        def get(_) -> None:
            with httpx.Client(base_url=self.base_url, trust_env=False, timeout=30) as client:
                for _ in range(4):
                    client.get("/login/")

        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            list(pool.map(get, range(self.concurrency)))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


# Measuring -----------------------------------------------------------------------------------


@contextmanager
def measure_phase(recorder, server: "Gunicorn"):
    """Time the phase run inside, and record its length, its CPU line and the gunicorn
    workers' CPU seconds on `recorder`."""
    cpu = CpuMeter(server.process.pid)
    started = time.perf_counter()
    yield
    recorder.seconds = time.perf_counter() - started
    recorder.cpu_line = cpu.report(recorder.seconds)
    recorder.worker_cpu = cpu.worker_seconds()


class CpuMeter:
    """CPU seconds over the work phase: the whole machine, each gunicorn worker, the
    PostgreSQL processes and this client. Linux only; elsewhere it prints nothing."""

    def __init__(self, server_pid: int) -> None:
        self.server_pid = server_pid
        self.available = Path("/proc/stat").exists()
        self.tick = os.sysconf("SC_CLK_TCK") if self.available else 100
        self.start = self.snapshot()

    def _process(self, pid: int, *, reaped: bool = False) -> float:
        """CPU seconds of `pid`; with `reaped`, also of its children that have ended."""
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        ticks = int(fields[11]) + int(fields[12])
        if reaped:
            ticks += int(fields[13]) + int(fields[14])
        return ticks / self.tick

    def snapshot(self) -> dict[str, float]:
        if not self.available:
            return {}
        children = Path(f"/proc/{self.server_pid}/task/{self.server_pid}/children")
        workers = children.read_text().split() if children.exists() else []
        times = os.times()
        return {
            "client": times.user + times.system,
            **{f"worker {pid}": self._process(int(pid)) for pid in workers},
            # Django reopens its connections every CONN_MAX_AGE seconds: a backend that
            # ends is counted in the postmaster's reaped-children time, so the sum only grows.
            "postgres": sum(self._process(pid, reaped=True) for pid in self._postgres_pids()),
            "busy": machine_ticks()[1] / self.tick,
        }

    def _postgres_pids(self) -> list[int]:
        pids = []
        for comm in Path("/proc").glob("[0-9]*/comm"):
            try:
                if comm.read_text().strip() == "postgres":
                    pids.append(int(comm.parent.name))
            except OSError:
                continue
        return pids

    def worker_seconds(self) -> float | None:
        """CPU seconds of the gunicorn workers since the meter started (None off Linux)."""
        end = self.snapshot()
        if not end:
            return None
        return sum(v - self.start.get(k, 0.0) for k, v in end.items() if k.startswith("worker"))

    def report(self, seconds: float) -> str:
        end = self.snapshot()
        if not end:
            return ""
        used = {k: end[k] - self.start.get(k, 0.0) for k in end}
        workers = sorted((v for k, v in used.items() if k.startswith("worker")), reverse=True)
        used["server"] = sum(workers)
        rest = max(0.0, used["busy"] - used["client"] - used["server"] - used["postgres"])
        return (
            f"CPU over the work phase ({os.cpu_count()} CPUs x {seconds:.1f} s): "
            f"machine busy {used['busy']:.1f} s: gunicorn workers {used['server']:.1f} s "
            f"({', '.join(f'{w:.1f}' for w in workers)}), "
            f"PostgreSQL {used['postgres']:.1f} s, this client {used['client']:.1f} s, "
            f"the rest (kernel, other processes) {rest:.1f} s"
        )
