"""Load: 50 experts annotating and 5 researchers reading reports at once, behind gunicorn.

Builds the stack of bench/_stack.py (a fresh PostgreSQL database, a synthetic benchmark of
400 cases x about 10 criteria answered by 3 systems, imported judge verdicts for every
response, 50 experts in one round over every response, 5 researchers), starts gunicorn on a
free loopback port and, for --duration seconds (default 60), drives at the same time:

- each expert: log in, ask for the next item once, then go from item to item as the page
  does: the annotation page, an autosave of the answers, submit, whose redirect opens the
  following item (asking for the next item again only if a submit leads back to the list);
- each researcher: log in, then the agreement report, the leaderboard, the disagreement
  browser and the exports page, in turn.

Experts pause 2 s on average before each request they make (the autosave and the submit:
two pauses per item) and researchers 2 s after each page (--think; uniformly half to one and
a half times that): still dozens of times the pace of people reading dialogues and reports,
while keeping the measure about serving requests rather than about a queue. --think 0
drives the server flat out (capacity). The tables are ANALYZEd after seeding, as autovacuum
does within a minute of a bulk load.

Before that, the round opening: every expert, logged in, asks for the next item at the same
moment (a barrier releases them together) and opens the page it leads to, as when a
coordinator announces a new round; then again on --bursts - 1 fresh rounds of the same pool.
The "next item" p95 over all the openings' requests is the figure of goal 3; every item is
then checked to have no more assignments than its round's rater count.

Then the annotation phase alone (experts only, for --annotation-duration seconds, no
researchers) measures the gunicorn workers' CPU seconds per expert request (page load,
autosave, submit, next), and the ceiling phase the same per bare-view request: their ratio
is goal 2 (at most 3). The experts then hammer a view that only checks their permission
(/bench/signed-in): the floor of every page they open, printed beside the goal.

Then the same clients hammer a view that does nothing (/bench/ceiling, mounted only with
CONCORD_BENCH_CEILING) through the same gunicorn and middleware: the ceiling of the stack.
Prints throughput, p50/p95/p99 per endpoint and the errors (any status other than 200 or
302, or an exception). Goal: zero errors, p95 under 200 ms for the annotation page and
submit. Times are printed, never asserted; the exit status is non-zero only on errors.

The load generator is Python threads with one httpx client each (as bench/review_load.py):
no other dependency, one cookie jar per user, and its CPU is measured and printed, since it
shares the machine with the server. Everything talks to 127.0.0.1 only.

    python bench/load.py
    python bench/load.py --duration 30 --workers 4 --threads 2
    python bench/load.py --duration 0 --annotation-duration 30   # burst and ratios only
"""

import argparse
import json
import os
import random
import secrets
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._cpu_ratio import (
    CEILING,
    EXPERT_ENDPOINTS,
    report_cpu_ratio,
    run_ceiling,
    run_signed_in_floor,
)
from bench._experts import Expert, Recorder, percentile, print_table
from bench._host import host_report
from bench._round_opening import report_burst, run_bursts
from bench._stack import (
    DEFAULT_SERVER,
    PASSWORD,
    Gunicorn,
    analyze,
    drop_database,
    measure_phase,
    migrate,
    recreate_database,
    seed,
    server_env,
)

DATABASE = "concord_bench_load"
SLUG = "review-load"
GOAL_MS = 200
RESEARCHER_PAGES = {
    "agreement report": f"/benchmarks/{SLUG}/agreement/",
    "leaderboard": f"/benchmarks/{SLUG}/leaderboard/",
    "disagreements": f"/benchmarks/{SLUG}/agreement/disagreements/",
    "exports page": f"/benchmarks/{SLUG}/exports/",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experts", type=int, default=50)
    parser.add_argument("--researchers", type=int, default=5)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument(
        "--ceiling-duration", type=float, default=None, help="seconds on the bare view"
    )
    parser.add_argument(
        "--annotation-duration",
        type=float,
        default=30.0,
        help="seconds of the experts-only phase that measures CPU per request (0: skip)",
    )
    parser.add_argument(
        "--workers", type=int, default=4, help="gunicorn worker processes (as deployed)"
    )
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker")
    parser.add_argument("--keep-alive", type=int, default=2, help="gunicorn keep-alive (s)")
    parser.add_argument(
        "--think",
        type=float,
        default=2.0,
        help="mean pause (s) of an expert before each request and of a researcher after each "
        "page (default 2; 0 drives the server flat out)",
    )
    parser.add_argument(
        "--bursts", type=int, default=3, help="round openings, each on a fresh round (goal 3)"
    )
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--criteria-per-case", type=int, default=10)
    parser.add_argument("--systems", type=int, default=3)
    parser.add_argument("--fraction", type=float, default=1.0, help="share of responses sampled")
    parser.add_argument("--raters", type=int, default=3)
    parser.add_argument("--server", default=DEFAULT_SERVER, help="PostgreSQL server")
    parser.add_argument(
        "--database", default=DATABASE, help="database to create (and drop) on the server"
    )
    return parser.parse_args(argv)


def seed_reports(args: argparse.Namespace) -> list[str]:
    """Researchers, and one imported judge run per system, so the reports have a judge to
    compare with the experts' votes as they come in."""
    from django.db.models import Count

    from accounts.services import user_create_with_role
    from annotation.models import Criterion, System
    from judging.services.judgments_import import judgments_import

    rng = random.Random(7)
    # Seeded cases have a single rubric version each.
    criteria = dict(
        Criterion.objects.filter(rubric_version__case__benchmark__slug=SLUG)
        .values_list("rubric_version__case__external_id")
        .annotate(n=Count("pk"))
        .values_list("rubric_version__case__external_id", "n")
    )
    for system in System.objects.order_by("name"):
        rows = [
            json.dumps(
                {
                    "question_id": qid,
                    "score_detail": [rng.random() < 0.5 for _ in range(n)],
                    "score_reason": "模拟评分",
                },
                ensure_ascii=False,
            ).encode()
            + b"\n"
            for qid, n in criteria.items()
        ]
        judgments_import(
            chunks=rows, benchmark_slug=SLUG, system_name=system.name, judge_name="bench judge"
        )
    return [
        user_create_with_role(
            username=f"researcher{i:02d}", password=PASSWORD, role="Researcher"
        ).username
        for i in range(args.researchers)
    ]


class Researcher(Expert):
    """Logs in like an expert, then reads the report pages in turn until the deadline."""

    def read(self, *, deadline: float) -> None:
        pages = list(RESEARCHER_PAGES.items())
        offset = self.rng.randrange(len(pages))
        n = 0
        while time.monotonic() < deadline:
            endpoint, path = pages[(offset + n) % len(pages)]
            n += 1
            if self.call(endpoint, "GET", path) is None:
                time.sleep(0.5)  # an error is counted; do not spin on a broken page
            self.pause()  # reading the page


def run_mixed(args, server: Gunicorn, seeded: dict, researchers: list[str]) -> Recorder:
    recorder = Recorder()

    def client(cls, name: str, i: int, **extra):
        return cls(
            base_url=server.base_url,
            username=name,
            recorder=recorder,
            seed=i,
            think=args.think,
            keep_alive=args.keep_alive,
            **extra,
        )

    experts = [client(Expert, n, i, autosave=True) for i, n in enumerate(seeded["usernames"])]
    readers = [client(Researcher, n, 1000 + i) for i, n in enumerate(researchers)]
    everyone = experts + readers
    try:
        with ThreadPoolExecutor(max_workers=len(everyone)) as pool:
            logins = list(pool.map(Expert.login, everyone))
            print(f"logins: {sum(logins)} of {len(everyone)}", flush=True)
            deadline = time.monotonic() + args.duration
            with measure_phase(recorder, server):
                jobs = [
                    pool.submit(
                        e.work, round_id=seeded["round_id"], iterations=10**6, deadline=deadline
                    )
                    for e, ok in zip(experts, logins[: len(experts)], strict=True)
                    if ok
                ] + [
                    pool.submit(r.read, deadline=deadline)
                    for r, ok in zip(readers, logins[len(experts) :], strict=True)
                    if ok
                ]
                for job in jobs:
                    job.result()
    finally:
        for user in everyone:
            user.close()
    return recorder


def run_annotation(args, server: Gunicorn, seeded: dict) -> Recorder:
    """Experts only: the flow of the annotation page, to measure CPU per request."""
    quiet = argparse.Namespace(**{**vars(args), "duration": args.annotation_duration})
    return run_mixed(quiet, server, seeded, [])


def report(args, mixed: Recorder, ceiling: Recorder) -> int:
    endpoints = EXPERT_ENDPOINTS + list(RESEARCHER_PAGES)
    total = sum(len(mixed.latencies[e]) for e in endpoints)
    errors = sum(mixed.errors.values())
    print(
        f"\nmixed load: {args.experts} experts + {args.researchers} researchers for "
        f"{mixed.seconds:.1f} s (think time {args.think:g} s): {total} requests, "
        f"{total / mixed.seconds:.1f} requests/s, {mixed.submits} submits "
        f"({mixed.submits / mixed.seconds:.1f}/s); experts out of items: {mixed.out_of_items}"
    )
    print(
        f"errors: {errors}"
        + (f" ({', '.join(f'{k}: {v}' for k, v in mixed.errors.items())})" if errors else "")
    )
    for sample in mixed.samples:
        print(f"  e.g. {sample}")
    if mixed.cpu_line:
        print(mixed.cpu_line)
    print_table(mixed, endpoints)
    ceiling_errors = sum(ceiling.errors.values())
    print(
        f"\nceiling: a view that does nothing, same gunicorn and middleware, "
        f"{args.experts + args.researchers} clients for {ceiling.seconds:.1f} s: "
        f"{len(ceiling.latencies[CEILING]) / ceiling.seconds:.1f} requests/s, "
        f"errors: {ceiling_errors}"
    )
    print_table(ceiling, [CEILING])
    verdicts = []
    for endpoint in ("annotation page", "submit"):
        values = mixed.latencies.get(endpoint)
        if values:
            p95 = percentile(values, 95) * 1000
            verdicts.append(f"{endpoint} {p95:.0f} ms ({'met' if p95 < GOAL_MS else 'missed'})")
    print(
        f"goal: zero errors ({'met' if not errors else 'missed'}); p95 under {GOAL_MS} ms "
        "for the annotation page and submit: " + ", ".join(verdicts)
    )
    return 1 if errors or ceiling_errors else 0


def main() -> int:
    args = parse_args()
    var_dir = Path(tempfile.mkdtemp(prefix="concord-load-"))
    (var_dir / "staticfiles").mkdir()
    env = server_env(f"{args.server}/{args.database}", var_dir, secrets.token_urlsafe(50))
    env["CONCORD_BENCH_CEILING"] = "true"
    os.environ.update(env)
    print(host_report(), flush=True)
    recreate_database(args.server, args.database)
    server = None
    status = 1
    try:
        migrate(env)
        started = time.perf_counter()
        seeded = seed(args)
        researchers = seed_reports(args)
        analyze()
        print(
            f"seeded in {time.perf_counter() - started:.1f} s: {seeded['cases']} cases, "
            f"{seeded['criteria']} criteria, {seeded['responses']} responses with judge "
            f"verdicts; one round of {seeded['items']} items x {args.raters} raters",
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
        server.wait_ready()
        print(
            f"gunicorn: {args.workers} workers x {args.threads} threads on {server.base_url}; "
            f"{os.cpu_count()} CPUs shared with this client",
            flush=True,
        )
        burst, burst_rounds = run_bursts(args, server, seeded)
        burst_ok = report_burst(args, burst, burst_rounds)
        annotation = floor = None
        if args.annotation_duration > 0:
            annotation = run_annotation(args, server, seeded)
            floor = run_signed_in_floor(args, server, seeded)
        mixed = run_mixed(args, server, seeded, researchers) if args.duration > 0 else None
        ceiling = run_ceiling(args, server)
        if annotation is not None:
            report_cpu_ratio(annotation, ceiling, floor)
        status = report(args, mixed, ceiling) if mixed is not None else 0
        status = status or (0 if burst_ok else 1)
    finally:
        if server is not None:
            server.stop()
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # Django may not be set up when an early step failed
            pass
        drop_database(args.server, args.database)
        shutil.rmtree(var_dir, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
