"""Load on the expert review pages: many experts annotating at once behind gunicorn.

Creates a fresh PostgreSQL database, migrates it and seeds a synthetic benchmark (400 cases of
about 10 criteria, 3 systems answering every case), 50 experts and one round sampling 30% of
the responses with 3 raters per item. Then starts gunicorn on a free loopback port and drives
the experts concurrently, one HTTP client (with its own cookies) per expert: log in, ask
for the next item once, load the annotation page, then again and again submit every
criterion answered and load the page the submit redirects to (the following item), as the
page does.

Prints throughput, p50/p95/p99 per endpoint, the errors (any status other than 200 or 302,
or an exception) and where the CPU went (gunicorn workers, PostgreSQL, this client). Goal:
p95 under 150 ms for the annotation page and for submit. Times are printed, never asserted:
the exit status is non-zero only when a request failed. The load generator runs on the same
machine as the server and competes with it for CPU; the machine's load is printed first,
since other work running at the same time skews every figure.

Each simulated expert pauses 2 s on average (uniformly 1-3 s) twice per item, reading and
then answering, before the submit (--think). A real expert spends minutes on an item of ten
criteria, so this is still dozens of times the load 50 people produce; it keeps the measure
about serving requests, not about a queue no lab would ever form. --think 0 drives the
server flat out instead: latency is then mostly queueing (50 experts / throughput) and the
figure to read is the throughput, the server's capacity. Defaults: 2 sync workers (one per
core of the 2-core reference machine); 4 workers x 2 threads and 2 x 4 reached the same
throughput with longer p95 tails.

    python bench/review_load.py
    python bench/review_load.py --think 0       # capacity: the server flat out
    python bench/review_load.py --workers 4 --threads 2 --keep-alive 0
"""

import argparse
import os
import secrets
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._experts import Expert, Recorder, percentile
from bench._host import host_report
from bench._stack import (
    DEFAULT_SERVER,
    CpuMeter,
    Gunicorn,
    analyze,
    drop_database,
    migrate,
    recreate_database,
    seed,
    server_env,
)

DATABASE = "concord_bench_review"
GOAL_MS = 150
ENDPOINTS = ["login form", "login", "next", "annotation page", "submit"]


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
        default=2.0,
        help="mean pause (s) of an expert before each submit and each next (default 2); "
        "0 drives the server flat out",
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
    print(host_report(), flush=True)
    recreate_database(args.server, DATABASE)
    try:
        started = time.perf_counter()
        migrate(env)
        print(f"database {DATABASE}: migrated in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        seeded = seed(args)
        analyze()
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
