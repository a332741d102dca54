"""Speed of the agreement report, the leaderboard page and the tidy export at full scale.

Loads synthetic data at HeartBench's full scale into a fresh database with bulk inserts:
1,126 cases of 10 criteria, 14 systems answering every case, a review round sampling 30% of
the responses with 3 raters each (about 140,000 votes), and a finished judge run with a
verdict on every criterion of every response (about 160,000 verdicts). Then times:

- the agreement report as the page computes it (`agreement_units` + `agreement_report`,
  with 1,000 cluster bootstrap resamples); goal under 3 s;
- the leaderboard page (Django test client GET, logged in; the first request apart, then
  the median of several); goal under 300 ms;
- rubric health (`rubric_health`, every criterion from every round, one judge version's runs),
  its page, and the frame a browser gets first (the report follows by htmx);
- signing in and landing on the first page (the form, the POST, the redirect);
- the tidy long export (`tidy_rows` consumed fully): rows/s, then the peak Python memory
  (tracemalloc, a second pass) on the full round and on a round a fifth of its size, to show
  memory does not grow with the size; goal at least 100,000 rows/s.

Times are printed, never asserted.

    python bench/agreement_speed.py                    # SQLite in a temporary folder
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/concord python bench/agreement_speed.py
    python bench/agreement_speed.py --profile report   # cProfile of one part (report,
                                                       # leaderboard or export)
"""

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GOALS = {"report": 3.0, "leaderboard": 0.300, "export": 100_000}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1126)
    parser.add_argument("--criteria-per-case", type=int, default=10)
    parser.add_argument("--systems", type=int, default=14)
    parser.add_argument("--fraction", type=float, default=0.3)
    parser.add_argument("--raters", type=int, default=3)
    parser.add_argument("--experts", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure")
    parser.add_argument("--profile", choices=["report", "leaderboard", "export"])
    parser.add_argument(
        "--var-dir",
        help="keep the SQLite database in this folder and reuse data seeded there by an earlier "
        "run with the same sizes (default: a new temporary folder)",
    )
    return parser.parse_args(argv)


def setup_django(var_dir: str | None = None) -> str:
    workdir = var_dir or tempfile.mkdtemp(prefix="concord-bench-")
    os.makedirs(workdir, exist_ok=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    os.environ["CONCORD_VAR_DIR"] = workdir
    os.environ["DEBUG"] = "false"  # DEBUG keeps every SQL statement in memory
    os.environ["ALLOWED_HOSTS"] = "testserver"
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    if connection.vendor == "postgresql":
        from django.test.utils import setup_databases

        setup_databases(verbosity=0, interactive=False)
    else:
        call_command("migrate", verbosity=0)
    return connection.vendor


def bulk(model, objects: list, batch: int = 5000) -> list:
    return model.objects.bulk_create(objects, batch_size=batch)


def seed(args: argparse.Namespace) -> dict:
    """Everything with bulk inserts; votes and verdicts agree with a hidden truth 85% of
    the time each, so the judge agrees with the majority about 87% of the time."""
    import numpy as np
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import (
        Assignment,
        Benchmark,
        Criterion,
        Response,
        ReviewItem,
        ReviewRound,
        RubricVersion,
        System,
        Vote,
    )
    from annotation.services.benchmark_import import benchmark_import
    from bench.synthetic_benchmark import question_rows
    from judging.models import JudgeRun, JudgeTask, Verdict
    from judging.services.judge_versions import judge_version_imported

    existing = Benchmark.objects.filter(slug="speed").first()
    if existing is not None:
        return {
            "benchmark": existing,
            "rounds": {
                name: ReviewRound.objects.get(benchmark=existing, name=f"speed {name}")
                for name in ("full", "fifth")
            },
            "run": JudgeRun.objects.get(benchmark=existing),
        }
    rng = np.random.default_rng(7)
    rows = question_rows(cases=args.cases, criteria=args.cases * args.criteria_per_case)
    benchmark_import(
        chunks=[(json.dumps(row, ensure_ascii=False) + "\n").encode() for row in rows],
        benchmark_slug="speed",
    )
    benchmark = Benchmark.objects.get(slug="speed")
    versions = dict(
        RubricVersion.objects.filter(case__benchmark=benchmark)
        .order_by("case_id", "number")
        .values_list("case_id", "pk")
    )  # the latest version per case wins
    criteria: dict[int, list[int]] = {}
    for version, pk in (
        Criterion.objects.filter(rubric_version_id__in=versions.values())
        .order_by("rubric_version_id", "position")
        .values_list("rubric_version_id", "pk")
    ):
        criteria.setdefault(version, []).append(pk)

    systems = bulk(
        System,
        [
            System(name=f"system-{i:02d}", kind=System.Kind.HUMAN if i == 13 else System.Kind.LLM)
            for i in range(args.systems)
        ],
    )
    systems = list(System.objects.filter(name__startswith="system-").order_by("name"))
    bulk(
        Response,
        [
            Response(system=s, case_id=case, text=f"{s.name} 的回答 {case}", source="import")
            for s in systems
            for case in versions
        ],
    )
    responses = list(
        Response.objects.filter(case__benchmark=benchmark)
        .order_by("pk")
        .values_list("pk", "case_id")
    )
    truth = {
        (response, criterion): bool(rng.random() < 0.5)
        for response, case in responses
        for criterion in criteria[versions[case]]
    }

    def noisy(value: bool) -> bool:
        return value if rng.random() < 0.85 else not value

    users = get_user_model()
    bulk(users, [users(username=f"speed-e{i:02d}") for i in range(args.experts)])
    experts = list(users.objects.filter(username__startswith="speed-e").order_by("pk"))
    sampled = [
        responses[i]
        for i in sorted(
            rng.choice(len(responses), int(len(responses) * args.fraction), replace=False)
        )
    ]
    now = timezone.now()
    rounds = {}
    for name, picked in (("full", sampled), ("fifth", sampled[: len(sampled) // 5])):
        round_ = ReviewRound.objects.create(benchmark=benchmark, name=f"speed {name}")
        round_.systems.set(systems)
        round_.experts.set(experts)
        items = bulk(
            ReviewItem,
            [
                ReviewItem(round=round_, response_id=r, rubric_version_id=versions[c])
                for r, c in picked
            ],
        )
        items = list(
            ReviewItem.objects.filter(round=round_)
            .order_by("pk")
            .values_list("pk", "response_id", "rubric_version_id")
        )
        bulk(
            Assignment,
            [
                Assignment(
                    item_id=item,
                    expert=experts[(n + k) % len(experts)],
                    status=Assignment.Status.SUBMITTED,
                    active_seconds=30 + k,
                    revision=1,
                    submitted=now,
                )
                for n, (item, _, _) in enumerate(items)
                for k in range(args.raters)
            ],
        )
        assignments = Assignment.objects.filter(item__round=round_).values_list(
            "pk", "item__response_id", "item__rubric_version_id"
        )
        bulk(
            Vote,
            [
                Vote(
                    assignment_id=a,
                    criterion_id=c,
                    revision=1,
                    hit=noisy(truth[(response, c)]),
                    note="语气不够温和" if c % 17 == 0 else "",
                )
                for a, response, version in assignments.iterator(chunk_size=5000)
                for c in criteria[version]
            ],
        )
        rounds[name] = round_

    version = judge_version_imported(name="speed judge")
    run = JudgeRun.objects.create(
        benchmark=benchmark, judge_version=version, status=JudgeRun.Status.FINISHED, finished=now
    )
    run.systems.set(systems)
    system_of = {s.pk: s for s in systems}
    response_system = dict(
        Response.objects.filter(case__benchmark=benchmark).values_list("pk", "system_id")
    )
    bulk(
        JudgeTask,
        [
            JudgeTask(
                run=run,
                case_id=case,
                system=system_of[response_system[response]],
                response_id=response,
                rubric_version_id=versions[case],
                status=JudgeTask.Status.DONE,
                attempts=1,
            )
            for response, case in responses
        ],
    )
    tasks = JudgeTask.objects.filter(run=run).values_list("pk", "response_id", "rubric_version_id")
    bulk(
        Verdict,
        [
            Verdict(
                task_id=task,
                criterion_id=c,
                hit=noisy(truth[(response, c)]),
                reasoning="回应体现了对用户情绪的理解。",
            )
            for task, response, version in tasks.iterator(chunk_size=5000)
            for c in criteria[version]
        ],
    )
    return {"benchmark": benchmark, "rounds": rounds, "run": run}


def timed(function, repeats: int) -> tuple[float, float, object]:
    """(first, median of the following) seconds, and the last result."""
    times, result = [], None
    for _ in range(repeats + 1):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return times[0], statistics.median(times[1:]), result


def cpu_median(function, repeats: int) -> float:
    """Median CPU seconds of this process: on a machine shared with other work, wall time
    also counts the time spent waiting for a core."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    vendor = setup_django(args.var_dir)
    from django.contrib.auth import get_user_model
    from django.test import Client, override_settings

    from accounts.services import user_create_with_role
    from annotation.models import Vote
    from judging.models import Verdict
    from judging.scoring import Profile
    from leaderboard.boards.selectors.runs import board_runs
    from leaderboard.boards.selectors.scores import leaderboard_rows
    from leaderboard.exports.files import export_lines
    from leaderboard.exports.tidy import tidy_rows
    from leaderboard.report.agreement import agreement_report
    from leaderboard.report.selectors.agreement import agreement_units
    from leaderboard.rubric_health.selectors.health import rubric_health

    print(f"database: {vendor}")
    start = time.perf_counter()
    data = seed(args)
    round_, run = data["rounds"]["full"], data["run"]
    print(
        f"seeded in {time.perf_counter() - start:.1f} s: {args.cases} cases x "
        f"{args.systems} systems, {Verdict.objects.count():,} judge verdicts, "
        f"{Vote.objects.filter(assignment__item__round=round_).count():,} votes in the round "
        f"({round_.items.count():,} items)"
    )

    def report():
        return agreement_report(agreement_units(round_=round_, runs=[run]))

    researcher = get_user_model().objects.filter(username="speed-r").first() or (
        user_create_with_role(username="speed-r", password="x-pass-123", role="Researcher")
    )
    client = Client()
    client.force_login(researcher)
    url = f"/benchmarks/speed/leaderboard/?run={run.pk}"

    def page():
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        return response

    def export(of_round):
        rows = 0
        for _ in tidy_rows(round_=of_round, run=run):
            rows += 1
        return rows

    def export_csv(of_round):
        size = 0
        for chunk in export_lines(
            kind="tidy", fmt="csv", round_=of_round, run=run, profile=Profile.HEARTBENCH
        ):
            size += len(chunk)
        return size

    if args.profile:
        target = {"report": report, "leaderboard": page, "export": lambda: export(round_)}
        profiler = cProfile.Profile()
        profiler.runcall(target[args.profile])
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
        return

    first, median, result = timed(report, max(1, args.repeats // 2))
    print(
        f"agreement report: {first:.2f} s first, {median:.2f} s median "
        f"({result.units:,} units, {result.bootstrap['resamples']} bootstrap resamples, "
        f"agreement {result.percent_agreement:.3f}); goal < {GOALS['report']:.0f} s"
    )
    start = time.perf_counter()
    units = agreement_units(round_=round_, runs=[run])
    selected = time.perf_counter() - start
    start = time.perf_counter()
    agreement_report(units)
    print(
        f"  of which units (queries): {selected:.2f} s, "
        f"pure report: {time.perf_counter() - start:.2f} s"
    )

    first, median, response = timed(page, args.repeats)
    print(
        f"leaderboard page: {first * 1000:.0f} ms first (scores the run and stores the rows), "
        f"{median * 1000:.0f} ms median of {args.repeats} ({len(response.content) / 1e3:.0f} kB), "
        f"CPU {cpu_median(page, args.repeats) * 1000:.0f} ms median; goal < "
        f"{GOALS['leaderboard'] * 1000:.0f} ms"
    )
    first, median, found = timed(lambda: rubric_health(benchmark=run.benchmark), 2)
    print(
        f"rubric health: {first:.2f} s first, {median:.2f} s median, CPU "
        f"{cpu_median(lambda: rubric_health(benchmark=run.benchmark), 2):.2f} s median "
        f"({len(found.criteria):,} criteria from every round and run, {len(found.flagged):,} "
        "flagged)"
    )
    health_page = "/benchmarks/speed/rubrics/health/?all=1"
    first, median, _ = timed(lambda: client.get(health_page), 2)
    print(f"  the page, all criteria (the first 500 listed): {median:.2f} s median")
    # A browser gets the page's frame at once; htmx then asks for the report (timed above).
    frame = lambda: client.get(health_page, headers={"Accept": "text/html"})  # noqa: E731
    first, median, _ = timed(frame, args.repeats)
    print(f"  the frame a browser gets first: {median * 1000:.0f} ms median")

    def sign_in_and_land():
        # A fresh browser: the sign-in form, the POST, and the landing page it leads to.
        visitor = Client()
        visitor.get("/login/")
        landed = visitor.post(
            "/login/", {"username": "speed-r", "password": "x-pass-123"}, follow=True
        )
        assert landed.status_code == 200 and landed.redirect_chain, landed.status_code
        return landed

    # The test settings hash passwords with MD5 for speed; a site uses Django's default
    # (PBKDF2), which is most of a sign-in's cost.
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.PBKDF2PasswordHasher"]):
        researcher.set_password("x-pass-123")
        researcher.save(update_fields=["password"])
        first, median, _ = timed(sign_in_and_land, args.repeats)
    print(
        f"sign-in to the landing page: {first:.2f} s first, {median:.2f} s median of "
        f"{args.repeats} (PBKDF2 password hashing included)"
    )
    board = board_runs(benchmark=run.benchmark, runs=[run.pk])
    scoring = cpu_median(lambda: leaderboard_rows(board=board, profile="heartbench"), 3)
    print(f"  scoring the run without stored rows: CPU {scoring * 1000:.0f} ms")

    for name, of_round in data["rounds"].items():
        start = time.perf_counter()
        rows = export(of_round)
        seconds = time.perf_counter() - start
        tracemalloc.start()
        export(of_round)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        cpu = cpu_median(lambda of_round=of_round: export(of_round), 3)
        print(
            f"tidy export ({name} round): {rows:,} rows in {seconds:.2f} s = "
            f"{rows / seconds:,.0f} rows/s (CPU: {rows / cpu:,.0f} rows/s), peak Python memory "
            f"{peak / 1e6:.1f} MB; goal >= {GOALS['export']:,} rows/s"
        )
        start, cpu_start = time.perf_counter(), time.process_time()
        size = export_csv(of_round)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        print(
            f"  as the CSV file ({size / 1e6:.1f} MB): {rows / seconds:,.0f} rows/s "
            f"(CPU: {rows / cpu:,.0f} rows/s)"
        )


if __name__ == "__main__":
    main()
