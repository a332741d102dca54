"""Where an annotation request's CPU goes: the expert's flow of bench/load.py (the page, an
autosave, the submit, and "next" when a submit leads back to the list) run in this process
through Django's request handler and full middleware, with no gunicorn and no think time.

Prints, per endpoint, the process CPU per request, the queries per request and, with
--profile, the functions that took the most CPU (cProfile, cumulative). The bare view
(/bench/ceiling) is measured the same way, so the ratio printed is goal 2's without the
server around it; bench/load.py measures the same ratio behind gunicorn.

    python bench/annotation_profile.py
    python bench/annotation_profile.py --items 200 --profile 30
    python bench/annotation_profile.py --queries     # print the SQL of one request of each
"""

import argparse
import cProfile
import os
import pstats
import re
import secrets
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._host import host_report
from bench._stack import (
    DEFAULT_SERVER,
    PASSWORD,
    analyze,
    drop_database,
    migrate,
    recreate_database,
    seed,
    server_env,
)

DATABASE = "concord_bench_profile"
ENDPOINTS = ["next", "annotation page", "autosave", "submit"]
CEILING = "bare view"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=150, help="items to annotate")
    parser.add_argument("--experts", type=int, default=10)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--criteria-per-case", type=int, default=10)
    parser.add_argument("--systems", type=int, default=3)
    parser.add_argument("--fraction", type=float, default=1.0)
    parser.add_argument("--raters", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, help="print the N costliest functions")
    parser.add_argument("--queries", action="store_true", help="print one request's SQL each")
    parser.add_argument("--profile-out", default="", help="also write the profile to this file")
    parser.add_argument(
        "--keep", action="store_true", help="keep the database (and its name) after the run"
    )
    parser.add_argument("--server", default=DEFAULT_SERVER)
    parser.add_argument("--database", default=DATABASE)
    return parser.parse_args(argv)


class Meter:
    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.count: dict[str, int] = defaultdict(int)
        self.queries: dict[str, int] = defaultdict(int)
        self.sql: dict[str, list[str]] = {}

    def call(self, endpoint: str, send, *, keep_sql: bool):
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as captured:
            started = time.process_time()
            response = send()
            self.cpu[endpoint] += time.process_time() - started
        self.count[endpoint] += 1
        self.queries[endpoint] += len(captured)
        if keep_sql and endpoint not in self.sql:
            self.sql[endpoint] = [q["sql"] for q in captured.captured_queries]
        if response.status_code not in (200, 302):
            raise RuntimeError(f"{endpoint}: HTTP {response.status_code}")
        return response


def run(args: argparse.Namespace, seeded: dict) -> Meter:
    from django.test import Client

    meter = Meter()
    profiler = cProfile.Profile() if args.profile else None
    clients = []
    for name in seeded["usernames"]:
        client = Client(enforce_csrf_checks=False)
        if client.post("/login/", {"username": name, "password": PASSWORD}).status_code != 302:
            raise RuntimeError(f"{name} could not sign in")
        clients.append(client)
    anonymous = Client()
    round_id = seeded["round_id"]
    pages: dict[int, str] = {}
    done = 0
    while done < args.items:
        for i, client in enumerate(clients):
            keep = args.queries
            if i not in pages:
                answer = meter.call(
                    "next",
                    lambda c=client: c.post(f"/review/rounds/{round_id}/next/"),
                    keep_sql=keep,
                )
                location = answer.headers["Location"]
                if not location.startswith("/review/work/"):
                    return meter
                pages[i] = location
            if profiler:
                profiler.enable()
            page = meter.call(
                "annotation page", lambda c=client, p=pages[i]: c.get(p), keep_sql=keep
            )
            html = page.content.decode()
            data = {"base_revision": "0", "active_seconds": "40", "comment": ""}
            for pk in dict.fromkeys(re.findall(r'name="hit-(\d+)"', html)):
                data[f"hit-{pk}"] = "1" if int(pk) % 2 else "0"
                data[f"note-{pk}"] = ""
            meter.call(
                "autosave",
                lambda c=client, p=pages[i], d=data: c.post(p + "autosave/", d),
                keep_sql=keep,
            )
            answer = meter.call(
                "submit",
                lambda c=client, p=pages[i], d=data: c.post(p + "submit/", d),
                keep_sql=keep,
            )
            meter.call(CEILING, lambda: anonymous.get("/bench/ceiling"), keep_sql=keep)
            if profiler:
                profiler.disable()
            location = answer.headers["Location"]
            if location.startswith("/review/work/"):
                pages[i] = location
            else:
                pages.pop(i)
            done += 1
            if done >= args.items:
                break
    if profiler:
        if args.profile_out:
            profiler.dump_stats(args.profile_out)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.profile)
    return meter


def report(meter: Meter) -> None:
    print(f"{'endpoint':<18} {'count':>6} {'CPU ms':>8} {'queries':>8}")
    for endpoint in [*ENDPOINTS, CEILING]:
        n = meter.count[endpoint]
        if n:
            print(
                f"{endpoint:<18} {n:>6} {meter.cpu[endpoint] / n * 1000:>8.2f} "
                f"{meter.queries[endpoint] / n:>8.1f}"
            )
    requests = sum(meter.count[e] for e in ENDPOINTS)
    per_request = sum(meter.cpu[e] for e in ENDPOINTS) / requests * 1000
    per_bare = meter.cpu[CEILING] / meter.count[CEILING] * 1000
    print(
        f"CPU per annotation request {per_request:.2f} ms, per bare-view request "
        f"{per_bare:.2f} ms: ratio {per_request / per_bare:.2f} (in process, no server)"
    )
    for endpoint, sql in meter.sql.items():
        print(f"\n-- {endpoint}: {len(sql)} queries")
        for statement in sql:
            print("  " + statement[:300])


def main() -> int:
    args = parse_args()
    var_dir = Path(tempfile.mkdtemp(prefix="concord-profile-"))
    for name in ("broker", "broker-processed", "broker-control", "staticfiles"):
        (var_dir / name).mkdir()
    env = server_env(f"{args.server}/{args.database}", var_dir, secrets.token_urlsafe(50))
    env["CONCORD_BENCH_CEILING"] = "true"
    env["ALLOWED_HOSTS"] = "testserver"
    os.environ.update(env)
    print(host_report(), flush=True)
    recreate_database(args.server, args.database)
    try:
        migrate(env)
        seeded = seed(args)
        if args.keep:
            print(f"keeping {args.server}/{args.database}; round {seeded['round_id']}")
        analyze()
        report(run(args, seeded))
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            drop_database(args.server, args.database)
        shutil.rmtree(var_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
