"""Load on the expert review pages: many experts annotating at once behind gunicorn.

Creates a fresh PostgreSQL database, migrates it and seeds a synthetic benchmark (400 cases of
about 10 criteria, 3 systems answering every case), 50 experts and one round sampling 30% of
the responses with 3 raters per item. Then starts gunicorn on a free loopback port and drives
the experts concurrently, one HTTP client (with its own cookies) per expert: log in, then
for each iteration ask for the next item, load the annotation page, submit every criterion
answered and load the page the submit redirects to (the following item).

Prints throughput, p50/p95/p99 per endpoint, the errors (any status other than 200 or 302,
or an exception) and where the CPU went (gunicorn workers, PostgreSQL, this client). Goal:
p95 under 150 ms for the annotation page and for submit. Times are printed, never asserted:
the exit status is non-zero only when a request failed. The load generator runs on the same
machine as the server and competes with it for CPU; the machine's load is printed first,
since other work running at the same time skews every figure.

By default the experts do not pause (--think 0): the run measures the server flat out, where
latency is mostly queueing (50 experts / throughput). --think gives each expert a mean pause
before each request. Defaults: 2 sync workers (one per core of the 2-core reference machine);
4 workers x 2 threads and 2 x 4 reached the same throughput with longer p95 tails.

    python bench/review_load.py
    python bench/review_load.py --workers 4 --threads 2 --keep-alive 0
    python bench/review_load.py --think 2
"""

import argparse
import json
import math
import os
import random
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
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
sys.path.insert(0, str(ROOT))

DEFAULT_SERVER = "postgresql://postgres@127.0.0.1:5432"
DATABASE = "concord_bench_review"
PASSWORD = "review-load-Expert-2025"
GOAL_MS = 150
ENDPOINTS = ["login form", "login", "next", "annotation page", "submit"]
WORK_PATH = re.compile(r"^/review/work/(\d+)/$")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experts", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=6, help="items each expert submits")
    parser.add_argument("--duration", type=float, default=60.0, help="cap on the work phase (s)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="threads per gunicorn worker (more than 1: the gthread worker class)",
    )
    parser.add_argument(
        "--keep-alive",
        type=int,
        default=2,
        help="gunicorn's keep-alive (s), for the gthread workers (sync workers close each "
        "connection); 0 closes each connection after its response, as behind a proxy",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean pause (s) of an expert before each submit and each next; 0 (the default) "
        "drives the server flat out",
    )
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--criteria-per-case", type=int, default=10)
    parser.add_argument("--systems", type=int, default=3)
    parser.add_argument("--fraction", type=float, default=0.3)
    parser.add_argument("--raters", type=int, default=3)
    parser.add_argument(
        "--server", default=DEFAULT_SERVER, help=f"PostgreSQL server (default {DEFAULT_SERVER})"
    )
    return parser.parse_args(argv)


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
    ) -> None:
        self.base_url = base_url
        self.think = think
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
        for _ in range(iterations):
            self.pause()  # also spreads the experts' first requests
            if time.monotonic() >= deadline:
                return
            answer = self.post("next", f"/review/rounds/{round_id}/next/", {})
            if answer is None or not self._is_work(answer):
                return
            page = self.page(urlsplit(answer.headers["location"]).path)
            if page is None or not self._submit(page.text):
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

    def _submit(self, html: str) -> bool:
        action = re.search(r'action="(/review/work/\d+/submit/)"', html)
        criteria = list(dict.fromkeys(re.findall(r'name="hit-(\d+)"', html)))
        if action is None or not criteria:
            self.recorder.error("annotation page", "no submit form or no criteria in the page")
            return False
        data = {
            "base_revision": _value(html, "base_revision"),
            "active_seconds": str(self.rng.randint(20, 110)),
            "comment": "",
        }
        for pk in criteria:
            data[f"hit-{pk}"] = self.rng.choice("10")
            data[f"note-{pk}"] = "理由充分" if self.rng.random() < 0.1 else ""
        self.pause()
        answer = self.post("submit", action.group(1), data)
        if answer is None:
            return False
        if answer.status_code != 302:
            self.recorder.error("submit", "the submit was not accepted (page shown again)")
            return False
        self.recorder.count("submits")
        location = urlsplit(answer.headers.get("location", "")).path
        if WORK_PATH.match(location):
            return self.page(location) is not None  # the next item, opened by the submit
        return False  # back to "my work": nothing left for this expert

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

    def _process(self, pid: int) -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / self.tick

    def snapshot(self) -> dict[str, float]:
        if not self.available:
            return {}
        children = Path(f"/proc/{self.server_pid}/task/{self.server_pid}/children")
        workers = children.read_text().split() if children.exists() else []
        times = os.times()
        return {
            "client": times.user + times.system,
            **{f"worker {pid}": self._process(int(pid)) for pid in workers},
            # Backends that started and ended within the phase escape this count; Django
            # keeps its connections open (CONN_MAX_AGE), so there are few such.
            "postgres": sum(self._process(pid) for pid in self._postgres_pids()),
            "busy": _machine_ticks()[1] / self.tick,
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


def _machine_ticks() -> tuple[int, int]:
    """All and busy CPU ticks of the machine since boot (user to steal; guest time is
    already counted in user)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return sum(values), sum(values) - values[3] - values[4]


def machine_busy(seconds: float = 1.0) -> float | None:
    """Share of the machine's CPU time busy over `seconds`: other work skews the figures."""
    if not Path("/proc/stat").exists():
        return None
    total, busy = _machine_ticks()
    time.sleep(seconds)
    total2, busy2 = _machine_ticks()
    return (busy2 - busy) / max(1, total2 - total)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def print_table(recorder: Recorder) -> None:
    print(f"{'endpoint':<16} {'count':>6} {'p50':>8} {'p95':>8} {'p99':>8} {'max':>8}  (ms)")
    for endpoint in ENDPOINTS:
        values = recorder.latencies.get(endpoint)
        if not values:
            continue
        figures = [percentile(values, p) * 1000 for p in (50, 95, 99)] + [max(values) * 1000]
        print(f"{endpoint:<16} {len(values):>6} " + " ".join(f"{f:>8.1f}" for f in figures))


def run_load(args: argparse.Namespace, server: "Gunicorn", seeded: dict) -> Recorder:
    base_url = server.base_url
    recorder = Recorder()
    experts = [
        Expert(
            base_url=base_url,
            username=name,
            recorder=recorder,
            seed=i,
            think=args.think,
            keep_alive=args.keep_alive,
        )
        for i, name in enumerate(seeded["usernames"])
    ]
    try:
        with ThreadPoolExecutor(max_workers=len(experts)) as pool:
            started = time.perf_counter()
            logins = list(pool.map(Expert.login, experts))
            logged_in = [e for e, ok in zip(experts, logins, strict=True) if ok]
            login_seconds = time.perf_counter() - started
            print(
                f"logins: {len(logged_in)} of {len(experts)} in {login_seconds:.2f} s "
                f"(password hashing dominates; not part of the work phase)",
                flush=True,
            )
            deadline = time.monotonic() + args.duration
            cpu = CpuMeter(server.process.pid)
            started = time.perf_counter()
            list(
                pool.map(
                    lambda e: e.work(
                        round_id=seeded["round_id"],
                        iterations=args.iterations,
                        deadline=deadline,
                    ),
                    logged_in,
                )
            )
            seconds = time.perf_counter() - started
            cpu_line = cpu.report(seconds)
    finally:
        for expert in experts:
            expert.close()
    work = ["next", "annotation page", "submit"]
    requests = recorder.requests(work)
    errors = sum(recorder.errors.values())
    print(
        f"work phase: {len(logged_in)} experts x up to {args.iterations} items "
        f"(cap {args.duration:g} s, think time {args.think:g} s) took {seconds:.2f} s"
    )
    print(
        f"throughput: {requests} requests, {requests / seconds:.1f} requests/s; "
        f"{recorder.submits} submits, {recorder.submits / seconds:.1f} submits/s; "
        f"experts out of items: {recorder.out_of_items}"
    )
    print(
        f"errors: {errors}"
        + (f" ({', '.join(f'{k}: {v}' for k, v in recorder.errors.items())})" if errors else "")
    )
    for sample in recorder.samples:
        print(f"  e.g. {sample}")
    if cpu_line:
        print(cpu_line)
    print_table(recorder)
    verdicts = []
    for endpoint in ("annotation page", "submit"):
        values = recorder.latencies.get(endpoint)
        if values:
            p95 = percentile(values, 95) * 1000
            verdicts.append(f"{endpoint} {p95:.0f} ms ({'met' if p95 < GOAL_MS else 'missed'})")
    print(
        f"goal: p95 under {GOAL_MS} ms for the annotation page and for submit: "
        + ", ".join(verdicts)
    )
    return recorder


def main() -> int:
    args = parse_args()
    var_dir = Path(tempfile.mkdtemp(prefix="concord-review-load-"))
    (var_dir / "staticfiles").mkdir()  # WhiteNoise warns about a missing STATIC_ROOT
    database_url = f"{args.server}/{DATABASE}"
    env = server_env(database_url, var_dir, secrets.token_urlsafe(50))
    os.environ.update(env)  # this process's Django (seeding) uses the same settings
    server = None
    busy = machine_busy()
    if busy is not None:
        print(
            f"machine busy before the run: {busy:.0%}"
            + (" (other work is running: the figures will be skewed)" if busy > 0.2 else "")
        )
    recreate_database(args.server, DATABASE)
    try:
        started = time.perf_counter()
        migrate(env)
        print(f"database {DATABASE}: migrated in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        seeded = seed(args)
        print(
            f"seeded in {time.perf_counter() - started:.1f} s: {seeded['cases']} cases, "
            f"{seeded['criteria']} criteria, {seeded['responses']} responses; one round of "
            f"{seeded['items']} items x {args.raters} raters for {args.experts} experts "
            f"(share {seeded['share']} items each)",
            flush=True,
        )
        from django.db import connections

        connections.close_all()
        server = Gunicorn(
            env=env,
            workers=args.workers,
            threads=args.threads,
            keep_alive=args.keep_alive,
            log=var_dir / "gunicorn.log",
        )
        ready = server.wait_ready()
        print(
            f"gunicorn: {args.workers} workers x {args.threads} threads, keep-alive "
            f"{args.keep_alive} s, on {server.base_url} "
            f"(answered after {ready:.1f} s); {os.cpu_count()} CPUs shared with this client",
            flush=True,
        )
        recorder = run_load(args, server, seeded)
    finally:
        if server is not None:
            server.stop()
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # Django may not be set up when an early step failed
            pass
        drop_database(args.server, DATABASE)
        shutil.rmtree(var_dir, ignore_errors=True)
    return 1 if recorder.errors else 0


if __name__ == "__main__":
    sys.exit(main())
