"""The stack the load benchmarks run against: a fresh PostgreSQL database with a synthetic
benchmark, a round and experts, gunicorn on a loopback port, and the pieces that drive and
measure it (one HTTP client per expert, a latency recorder, a CPU meter)."""

import argparse
import json
import math
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

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
WORK_PATH = re.compile(r"^/review/work/(\d+)/$")


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
    from annotation.models import Benchmark, Criterion, Response, System
    from annotation.services.benchmark_import import benchmark_import
    from annotation.services.responses_import import responses_import
    from annotation.services.review_assignment import expert_share
    from annotation.services.review_rounds import round_open
    from bench.synthetic_benchmark import question_rows

    rows = list(question_rows(cases=args.cases, criteria=args.cases * args.criteria_per_case))
    benchmark_import(
        chunks=[(json.dumps(row, ensure_ascii=False) + "\n").encode() for row in rows],
        benchmark_slug="review-load",
    )
    names = [f"system-{chr(ord('a') + i)}" for i in range(args.systems)]
    for name in names:
        answers = [
            {
                "question_id": row["question_id"],
                "response": f"{name} 的回答：听起来你真的很累。愿意说说最让你难受的是什么吗？"
                f"（{row['question_id']}）\n" + "我在这里陪着你。" * 20,
            }
            for row in rows
        ]
        responses_import(
            chunks=[(json.dumps(a, ensure_ascii=False) + "\n").encode() for a in answers],
            benchmark_slug="review-load",
            system_name=name,
        )
    experts = [
        user_create_with_role(username=f"expert{i:03d}", password=PASSWORD, role="Expert")
        for i in range(args.experts)
    ]
    benchmark = Benchmark.objects.get(slug="review-load")
    round_ = round_open(
        benchmark=benchmark,
        name="review load",
        systems=list(System.objects.filter(name__in=names)),
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


# Load ----------------------------------------------------------------------------------------


class Recorder:
    """Latencies per endpoint and errors, shared by the expert threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: Counter = Counter()
        self.samples: list[str] = []
        self.submits = 0
        self.out_of_items = 0
        self.seconds = 0.0  # length of the measured phase
        self.cpu_line = ""

    def latency(self, endpoint: str, seconds: float) -> None:
        with self.lock:
            self.latencies[endpoint].append(seconds)

    def error(self, endpoint: str, what: str) -> None:
        with self.lock:
            self.errors[endpoint] += 1
            if len(self.samples) < 5:
                self.samples.append(f"{endpoint}: {what}")

    def count(self, field: str) -> None:
        with self.lock:
            setattr(self, field, getattr(self, field) + 1)

    def requests(self, endpoints: list[str]) -> int:
        return sum(len(self.latencies[e]) for e in endpoints) + sum(
            self.errors[e] for e in endpoints
        )


def _value(html: str, name: str) -> str:
    found = re.search(rf'name="{re.escape(name)}" value="([^"]*)"', html)
    return found.group(1) if found else ""


class Expert:
    def __init__(
        self,
        *,
        base_url: str,
        username: str,
        recorder: Recorder,
        seed: int,
        think: float,
        keep_alive: int,
        autosave: bool = False,
    ) -> None:
        self.base_url = base_url
        self.think = think
        self.autosave = autosave  # save a draft (as the page does while typing) before submit
        self.username = username
        self.recorder = recorder
        self.rng = random.Random(seed)
        # An idle connection is dropped a second before the server would close it: reusing
        # one that the server is closing at that instant fails with "connection reset".
        self.client = httpx.Client(
            base_url=base_url,
            trust_env=False,
            timeout=30,
            follow_redirects=False,
            limits=httpx.Limits(max_connections=1, keepalive_expiry=max(0, keep_alive - 1)),
        )

    def call(self, endpoint: str, method: str, path: str, **kwargs) -> "httpx.Response | None":
        started = time.perf_counter()
        try:
            response = self.client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            self.recorder.error(endpoint, f"{type(exc).__name__}: {exc}")
            return None
        self.recorder.latency(endpoint, time.perf_counter() - started)
        if response.status_code not in (200, 302):
            self.recorder.error(endpoint, f"HTTP {response.status_code} for {method} {path}")
            return None
        return response

    def post(self, endpoint: str, path: str, data: dict) -> "httpx.Response | None":
        data = {"csrfmiddlewaretoken": self.client.cookies.get("csrftoken", ""), **data}
        return self.call(
            endpoint, "POST", path, data=data, headers={"Referer": self.base_url + path}
        )

    def login(self) -> bool:
        if self.call("login form", "GET", "/login/") is None:
            return False
        answer = self.post("login", "/login/", {"username": self.username, "password": PASSWORD})
        if answer is None:
            return False
        if answer.status_code != 302:
            self.recorder.error("login", f"{self.username} was refused")
            return False
        return True

    def pause(self) -> None:
        """The expert reading and answering: `think` seconds on average, none by default."""
        if self.think > 0:
            time.sleep(self.think * self.rng.uniform(0.5, 1.5))

    def page(self, location: str) -> "httpx.Response | None":
        return self.call("annotation page", "GET", location)

    def work(self, *, round_id: int, iterations: int, deadline: float) -> None:
        """Ask for an item once, then go from item to item as the page does: each submit
        redirects to the following item. Asks again only when a submit leads back to the
        work list (nothing could be handed out at that moment)."""
        page = None
        for _ in range(iterations):
            if page is None:
                self.pause()
                if time.monotonic() >= deadline:
                    return
                answer = self.post("next", f"/review/rounds/{round_id}/next/", {})
                if answer is None or not self._is_work(answer):
                    return
                page = self.page(urlsplit(answer.headers["location"]).path)
                if page is None:
                    return
            done, page = self._submit(page.text, deadline=deadline)
            if done:
                return

    def _is_work(self, answer) -> bool:
        location = urlsplit(answer.headers.get("location", "")).path
        if answer.status_code == 302 and WORK_PATH.match(location):
            return True
        if answer.status_code == 302 and location == "/review/":
            self.recorder.count("out_of_items")
        else:
            self.recorder.error("next", f"unexpected answer {answer.status_code} {location!r}")
        return False

    def _submit(self, html: str, *, deadline: float) -> "tuple[bool, httpx.Response | None]":
        """Read and answer (a pause), save a draft when autosaving, think again (a pause),
        submit, and open the page the submit redirects to. Returns whether to stop, and the
        following item's page (None: ask for the next item)."""
        action = re.search(r'action="(/review/work/\d+/submit/)"', html)
        criteria = list(dict.fromkeys(re.findall(r'name="hit-(\d+)"', html)))
        if action is None or not criteria:
            self.recorder.error("annotation page", "no submit form or no criteria in the page")
            return True, None
        data = {
            "base_revision": _value(html, "base_revision"),
            "active_seconds": str(self.rng.randint(20, 110)),
            "comment": "",
        }
        for pk in criteria:
            data[f"hit-{pk}"] = self.rng.choice("10")
            data[f"note-{pk}"] = "理由充分" if self.rng.random() < 0.1 else ""
        self.pause()
        autosave_url = re.search(r'data-autosave-url="([^"]+)"', html)
        saving = self.autosave and autosave_url and time.monotonic() < deadline
        if saving and self.post("autosave", autosave_url.group(1), data) is None:
            return True, None
        self.pause()
        if time.monotonic() >= deadline:
            return True, None
        answer = self.post("submit", action.group(1), data)
        if answer is None:
            return True, None
        if answer.status_code != 302:
            self.recorder.error("submit", "the submit was not accepted (page shown again)")
            return True, None
        self.recorder.count("submits")
        location = urlsplit(answer.headers.get("location", "")).path
        if not WORK_PATH.match(location):
            return False, None  # back to the work list: ask for the next item
        following = self.page(location)
        return following is None, following

    def close(self) -> None:
        self.client.close()


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


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]
