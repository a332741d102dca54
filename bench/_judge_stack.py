"""What bench/judge_throughput.py runs against: Django on a fresh database (SQLite in a
temporary folder, or a test database of its own on a PostgreSQL server), a synthetic
benchmark with every system's responses, and the simulator in a process of its own."""

import argparse
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class SimulatorProcess:
    """The simulator in a child process, with the in-process handle's methods (over HTTP)."""

    def __init__(self, latency_ms: float, retry_after: float) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "judging.simulator",
                "--quiet",
                "--port",
                "0",
                "--latency-ms",
                str(latency_ms),
                "--retry-after",
                str(retry_after),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self.process.stdout.readline()
        if "listening on" not in line:
            self.process.kill()
            raise RuntimeError(f"the simulator did not start: {line!r}")
        self.base_url = line.rsplit(" ", 1)[-1].strip()
        self.root_url = self.base_url.removesuffix("/v1")

    def _call(self, path: str, body: dict | None = None) -> dict:
        import urllib.request

        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.root_url + path, data=data, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            return json.load(reply)

    def stats(self) -> dict:
        return self._call("/_sim/stats")

    def configure(self, **settings) -> dict:
        return self._call("/_sim/config", settings)

    def reset(self) -> None:
        self._call("/_sim/reset", {})

    def cpu_seconds(self) -> float:
        """User + system CPU of the simulator process so far (Linux /proc)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def setup_django(postgres: str | None) -> tuple[object, Path]:
    """Point Django at a fresh database; returns what teardown needs."""
    workdir = Path(tempfile.mkdtemp(prefix="concord-bench-"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    os.environ["CONCORD_VAR_DIR"] = str(workdir)
    os.environ["DEBUG"] = "false"  # DEBUG keeps every SQL statement in memory
    if postgres:
        os.environ["DATABASE_URL"] = postgres
    else:
        os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    # The HTTP client logs every request at INFO; llm_client quiets "httpx", but the
    # installed SDK's transport logs as "httpx2". Figures, not 900 log lines.
    for name in ("httpx", "httpx2", "httpcore2"):
        logging.getLogger(name).setLevel(logging.WARNING)
    from django.core.management import call_command
    from django.db import connection

    if connection.vendor == "postgresql":
        from django.test.utils import setup_databases

        # A name of its own, so that a test suite's database is never replaced.
        connection.settings_dict.setdefault("TEST", {})["NAME"] = (
            f"test_concord_bench_{os.getpid()}"
        )
        old_config = setup_databases(
            verbosity=0, interactive=False, aliases={"default"}, serialized_aliases=set()
        )
        return old_config, workdir
    call_command("migrate", verbosity=0)
    return None, workdir


def teardown_django(old_config, workdir: Path) -> None:
    from django.db import connections

    connections.close_all()
    if old_config is not None:
        from django.test.utils import teardown_databases

        teardown_databases(old_config, verbosity=0)
    shutil.rmtree(workdir, ignore_errors=True)


def make_benchmark(args: argparse.Namespace):
    from bench._seeding import benchmark_seed

    benchmark, systems, _ = benchmark_seed(
        slug="throughput",
        cases=args.cases,
        criteria_per_case=args.criteria_per_case,
        systems=args.systems,
    )
    return benchmark, systems
