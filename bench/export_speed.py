"""Exports over HTTP against the same exports in process: rate ratio and first byte.

Seeds a fresh PostgreSQL database as bench/agreement_speed.py does (bulk inserts: a review
round with every vote, a finished judge run with every verdict), then for each export
(votes, verdicts and the tidy long file, as CSV and JSON Lines):

- in process: the file's bytes as the download view produces them (`export_lines`,
  consumed fully): rows/s;
- over HTTP: gunicorn (the deployed server, sync workers) started on a loopback port, a
  researcher logged in, the real download URL read to the end with httpx: rows/s, the time
  to the first byte of the response (status line and headers: the browser's download
  starts) and to the first line of the file.

Prints, per export, the HTTP rate / in-process rate (goal >= 0.8) and the first byte (goal
within 100 ms), with the host's speed and load: other work on the machine skews both sides
of the ratio alike only if it is steady, so run it twice when the host is shared. Times are
printed, never asserted.

    python bench/export_speed.py
    python bench/export_speed.py --cases 300 --systems 6 --exports votes.csv
"""

import argparse
import os
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._host import host_report
from bench._stack import (
    DEFAULT_SERVER,
    PASSWORD,
    Gunicorn,
    analyze,
    drop_database,
    httpx,
    migrate,
    recreate_database,
    server_env,
)

DATABASE = "concord_bench_exports"
EXPORTS = ("votes.csv", "votes.jsonl", "verdicts.csv", "tidy.csv", "tidy.jsonl")
RATIO_GOAL = 0.8
FIRST_BYTE_GOAL_MS = 100


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1126)
    parser.add_argument("--criteria-per-case", type=int, default=10)
    parser.add_argument("--systems", type=int, default=14)
    parser.add_argument("--fraction", type=float, default=0.3)
    parser.add_argument("--raters", type=int, default=3)
    parser.add_argument("--experts", type=int, default=24)
    parser.add_argument("--exports", nargs="+", default=list(EXPORTS), choices=EXPORTS)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each side, best kept")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--server", default=DEFAULT_SERVER, help="PostgreSQL server")
    parser.add_argument("--database", default=DATABASE)
    return parser.parse_args(argv)


def in_process(kind: str, fmt: str, data: dict) -> tuple[int, float]:
    """(lines, seconds) of the export's bytes made in this process."""
    from judging.scoring import Profile
    from leaderboard.exports.files import export_lines

    started = time.perf_counter()
    count = 0
    for chunk in export_lines(
        kind=kind, fmt=fmt, round_=data["round"], run=data["run"], profile=Profile.HEARTBENCH
    ):
        count += chunk.count(b"\n")
    return count, time.perf_counter() - started


def over_http(client, url: str) -> tuple[int, float, float, float]:
    """(lines, seconds, first byte ms, first line ms) of one download read to the end."""
    started = time.perf_counter()
    count = 0
    first_line = None
    with client.stream("GET", url) as response:
        first_byte = time.perf_counter() - started  # the status line and headers are in
        if response.status_code != 200:
            raise RuntimeError(f"HTTP {response.status_code} for {url}")
        for chunk in response.iter_raw():  # as the bytes arrive (a size would gather them)
            if first_line is None and chunk:
                first_line = time.perf_counter() - started
            count += chunk.count(b"\n")
    seconds = time.perf_counter() - started
    return count, seconds, first_byte * 1000, (first_line or seconds) * 1000


def login(base_url: str):
    client = httpx.Client(base_url=base_url, trust_env=False, timeout=600)
    client.get("/login/")
    answer = client.post(
        "/login/",
        data={
            "csrfmiddlewaretoken": client.cookies.get("csrftoken", ""),
            "username": "export-researcher",
            "password": PASSWORD,
        },
        headers={"Referer": base_url + "/login/"},
    )
    if answer.status_code != 302:
        raise RuntimeError("the researcher could not log in")
    return client


def main() -> int:
    args = parse_args()
    var_dir = Path(tempfile.mkdtemp(prefix="concord-exports-"))
    (var_dir / "staticfiles").mkdir()
    env = server_env(f"{args.server}/{args.database}", var_dir, secrets.token_urlsafe(50))
    os.environ.update(env)
    print(host_report(), flush=True)
    recreate_database(args.server, args.database)
    server = None
    try:
        migrate(env)
        import django

        django.setup()
        from accounts.services import user_create_with_role
        from bench.agreement_speed import seed

        started = time.perf_counter()
        seeded = seed(args)
        user_create_with_role(username="export-researcher", password=PASSWORD, role="Researcher")
        analyze()
        data = {"round": seeded["rounds"]["full"], "run": seeded["run"]}
        print(f"seeded in {time.perf_counter() - started:.1f} s", flush=True)
        from django.db import connections

        server = Gunicorn(
            env=env, workers=args.workers, threads=1, keep_alive=2, log=var_dir / "gunicorn.log"
        )
        server.wait_ready()
        client = login(server.base_url)
        slug = data["round"].benchmark.slug
        print(
            f"{'export':<13} {'lines':>9} {'in process':>12} {'over HTTP':>12} {'ratio':>6} "
            f"{'first byte':>11} {'first line':>11}"
        )
        verdicts = []
        for name in args.exports:
            kind, fmt = name.split(".")
            url = (
                f"/benchmarks/{slug}/exports/{kind}.{fmt}"
                f"?round={data['round'].pk}&run={data['run'].pk}"
            )
            # Interleaved, the best of --repeats each: the host is shared, and a run that
            # another process slowed says little about either side.
            local = http = None
            for _ in range(args.repeats):
                lines, seconds = in_process(kind, fmt, data)
                connections.close_all()
                local = max(local or 0, lines / seconds)
                got = over_http(client, url)
                if got[0] != lines:
                    raise RuntimeError(f"{name}: {got[0]} lines over HTTP, {lines} in process")
                if http is None or got[1] < http[1]:
                    http = got
            rate = http[0] / http[1]
            ratio = rate / local
            verdicts.append((name, ratio, http[2]))
            print(
                f"{name:<13} {lines:>9,} {local:>10,.0f}/s {rate:>10,.0f}/s {ratio:>6.2f} "
                f"{http[2]:>8.0f} ms {http[3]:>8.0f} ms",
                flush=True,
            )
        client.close()
        worst = min(verdicts, key=lambda v: v[1])
        slowest = max(verdicts, key=lambda v: v[2])
        print(
            f"goal 1: HTTP rate >= {RATIO_GOAL} of the in-process rate (lowest: {worst[0]} "
            f"{worst[1]:.2f}, {'met' if worst[1] >= RATIO_GOAL else 'missed'}); first byte "
            f"within {FIRST_BYTE_GOAL_MS} ms (slowest: {slowest[0]} {slowest[2]:.0f} ms, "
            f"{'met' if slowest[2] <= FIRST_BYTE_GOAL_MS else 'missed'})"
        )
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
