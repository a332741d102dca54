"""Throughput of judge runs against the simulator, with and without faults.

Generates a synthetic benchmark (300 cases of 10 criteria, 3 systems answering every case:
900 judge calls), starts the OpenAI-compatible simulator in a process of its own at 250 ms
per call, and times `run_here` with 32 lanes. The ideal is concurrency / latency (128 calls/s);
goal: at least 85% of it. A second run with 10% of calls answered 429 (Retry-After 1 s)
and 5% malformed JSON checks that every fault is retried and every verdict accounted for.
Then the yardstick: the same 900 requests from threads sharing one bare SDK client, as a
hand-written script would send them; the clean run's rate and that of the whole `judge`
command (its own process, start-up included) are printed as shares of it (goals: 0.9 and
0.75).
Times are printed, never asserted: the exit status is non-zero only when something is
unaccounted for (a task neither done nor failed, or verdicts not matching criteria).

    python bench/judge_throughput.py                       # SQLite in a temporary folder
    python bench/judge_throughput.py --postgres postgres://postgres@127.0.0.1:5432/concord
    python bench/judge_throughput.py --both                # SQLite, then PostgreSQL
    python bench/judge_throughput.py --breakdown           # where the lanes spend time
    python bench/judge_throughput.py --profile 40          # cProfile of the lane threads
    python bench/judge_throughput.py --processes 2         # lanes over 2 processes
"""

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._bare_sdk import bare_sdk_rate, command_rate  # noqa: E402
from bench._host import host_report  # noqa: E402
from bench._judge_phases import instrumented, profiled  # noqa: E402
from bench._judge_stack import (  # noqa: E402
    SimulatorProcess,
    make_benchmark,
    setup_django,
    teardown_django,
)

DEFAULT_POSTGRES = "postgres://postgres@127.0.0.1:5432/concord"
REFERENCE_CALLS_PER_SECOND = 5  # the sequential reference scripts, at best


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--criteria-per-case", type=int, default=10)
    parser.add_argument("--systems", type=int, default=3)
    parser.add_argument("--latency-ms", type=float, default=250.0)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="processes sharing the lanes, as the judge command does (default 1; "
        "--breakdown and --profile see this process's lanes only)",
    )
    parser.add_argument("--rate-429", type=float, default=0.10)
    parser.add_argument("--rate-malformed", type=float, default=0.05)
    parser.add_argument("--retry-after", type=float, default=1.0)
    parser.add_argument(
        "--postgres",
        metavar="URL",
        help="use a fresh test database on this PostgreSQL server instead of SQLite",
    )
    parser.add_argument(
        "--both",
        nargs="?",
        const=DEFAULT_POSTGRES,
        metavar="URL",
        help=f"run on SQLite, then on PostgreSQL (default {DEFAULT_POSTGRES})",
    )
    parser.add_argument(
        "--simulator-thread",
        dest="simulator_process",
        action="store_false",
        help="run the simulator in a thread of this process instead of a process of its own "
        "(python -m judging.simulator, the default: a real endpoint does not share the "
        "lanes' interpreter lock)",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also print the lanes' time by phase (claim, task read, HTTP call, writes)",
    )
    parser.add_argument(
        "--profile",
        metavar="N",
        type=int,
        default=0,
        help="profile the lane threads of the clean run (cProfile); print the top N",
    )
    return parser.parse_args(argv)


def run_both(args: argparse.Namespace) -> int:
    """Django is set up once per process: each database gets a process of its own."""
    passed = [a for a in sys.argv[1:] if not a.startswith("--both")]
    if args.both in passed:
        passed.remove(args.both)
    status = 0
    for extra in ([], ["--postgres", args.both]):
        command = [sys.executable, str(Path(__file__).resolve()), *passed, *extra]
        print(f"$ {' '.join(command[1:])}", flush=True)
        status = max(status, subprocess.run(command, check=False).returncode)
        print(flush=True)
    return status


# -- the benchmark -------------------------------------------------------------------------


def judge_once(
    *, label, args, sim, benchmark, systems, config, fresh_calls, breakdown, top, goal_note
):
    from django.db.models import Count, Exists, OuterRef

    from annotation.models import Criterion
    from judging.models import JudgeAttempt, JudgeTask, Verdict
    from judging.services.lanes import run_here
    from judging.services.runs import judge_run_start

    run = judge_run_start(
        benchmark=benchmark, systems=systems, config=config, fresh_calls=fresh_calls
    )
    sim.reset()  # the figures are the run's calls (not the structured-output probe)
    tasks = run.tasks.count()
    with instrumented(breakdown) as phases, profiled(top):
        cpu = time.process_time()
        sim_cpu = sim.cpu_seconds() if hasattr(sim, "cpu_seconds") else None
        started = time.perf_counter()
        run_here(run_id=run.pk, lanes=args.concurrency, processes=args.processes)
        seconds = time.perf_counter() - started
        cpu = time.process_time() - cpu
        if sim_cpu is not None:
            sim_cpu = sim.cpu_seconds() - sim_cpu
    stats = sim.stats()
    requests = stats["requests"]

    statuses = dict(
        run.tasks.values_list("status").annotate(n=Count("pk")).values_list("status", "n")
    )
    attempts = JudgeAttempt.objects.filter(task__run=run)
    outcomes = dict(
        attempts.values_list("outcome").annotate(n=Count("pk")).values_list("outcome", "n")
    )
    later = JudgeAttempt.objects.filter(task=OuterRef("task"), number__gt=OuterRef("number"))
    retried = dict(
        attempts.filter(Exists(later))
        .values_list("outcome")
        .annotate(n=Count("pk"))
        .values_list("outcome", "n")
    )
    per_version = dict(
        Criterion.objects.filter(rubric_version_id__in=run.tasks.values("rubric_version_id"))
        .values_list("rubric_version_id")
        .annotate(n=Count("pk"))
        .values_list("rubric_version_id", "n")
    )
    done_versions = run.tasks.filter(status=JudgeTask.Status.DONE).values_list(
        "rubric_version_id", flat=True
    )
    expected_verdicts = sum(per_version[v] for v in done_versions)
    verdicts = Verdict.objects.filter(task__run=run).count()
    done = statuses.get(JudgeTask.Status.DONE, 0)
    failed = statuses.get(JudgeTask.Status.FAILED, 0)
    unended = tasks - done - failed

    rate = requests / seconds
    print(f"{label}:")
    print(
        f"  calls {requests} (for {tasks} tasks) in {seconds:.2f} s: {rate:.1f} calls/s, "
        f"{tasks / seconds:.1f} tasks/s"
    )
    if args.latency_ms > 0:
        ideal = args.concurrency / (args.latency_ms / 1000)
        print(
            f"  ideal {ideal:.0f} calls/s ({args.concurrency} in flight / "
            f"{args.latency_ms:g} ms): {100 * rate / ideal:.0f}% of ideal ({goal_note})"
        )
    print(f"  simulator max in flight {stats['max_in_flight']} (limit {args.concurrency})")
    print(
        f"  CPU of this process {cpu:.1f} s in {seconds:.1f} s: {cpu / seconds:.2f} cores busy "
        f"({1000 * cpu / requests:.1f} ms per call; {os.cpu_count()} CPUs, one GIL)"
    )
    if sim_cpu is not None:
        print(
            f"  CPU of the simulator process {sim_cpu:.1f} s: {sim_cpu / seconds:.2f} cores busy "
            f"({1000 * sim_cpu / requests:.1f} ms per call)"
        )
    print(f"  tasks: {done} done, {failed} failed, {unended} neither")
    print(
        "  attempts by outcome: "
        + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items(), key=lambda kv: -kv[1]))
    )
    faults = {k: v for k, v in stats["faults"].items() if v}
    if faults or fresh_calls:
        limited = outcomes.get(JudgeAttempt.Outcome.RATE_LIMITED, 0)
        invalid = outcomes.get(JudgeAttempt.Outcome.INVALID, 0)
        print(
            f"  simulator faults: {faults or 'none'}; "
            f"429s seen {limited}, retried {retried.get(JudgeAttempt.Outcome.RATE_LIMITED, 0)}; "
            f"malformed seen {invalid}, retried {retried.get(JudgeAttempt.Outcome.INVALID, 0)}"
        )
        print(f"  every task done or failed: {'yes' if not unended else 'NO'}; failed: {failed}")
    accounted = verdicts == expected_verdicts and not unended
    print(
        f"  verdicts {verdicts}, criteria over done tasks {expected_verdicts}: "
        f"{'accounted for' if accounted else 'NOT ACCOUNTED FOR'}"
    )
    if phases is not None:
        phases.report(args.concurrency, seconds)
    return accounted, rate


def sdk_ceiling(*, sim, lanes: int, latency_ms: float, seconds: float = 8.0) -> float:
    """The endpoint through the SDK alone, as a lane calls it (a client per thread, the
    clean run's requests) but with no database, no claims and no writes: what one process
    of `lanes` threads can do at all on this machine, beside the run's own figure."""
    from judging.llm_client import call_chat, client_new
    from judging.models import JudgeRun
    from judging.services.execution import criteria_load, task_prepare

    run = JudgeRun.objects.select_related("judge_version__prompt").order_by("pk").first()
    tasks = list(run.tasks.select_related("response__case").order_by("pk")[:lanes])
    criteria: dict[int, list] = {}
    criteria_load(criteria, {t.rubric_version_id for t in tasks})
    requests = [
        task_prepare(run=run, task=t, criteria=criteria[t.rubric_version_id]).request for t in tasks
    ]
    snapshot = run.settings_snapshot
    sim.reset()
    calls = [0] * lanes
    deadline = time.monotonic() + seconds

    def caller(index: int) -> None:
        client = client_new(base_url=snapshot["base_url"], api_key_env="", timeout=10.0)
        while time.monotonic() < deadline:
            call_chat(
                client,
                model=snapshot["model"],
                request=requests[index % len(requests)],
                temperature=0.0,
                seed=None,
                max_tokens=4096,
            )
            calls[index] += 1
        client.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=caller, args=(i,)) for i in range(lanes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rate = sum(calls) / (time.perf_counter() - started)
    ideal = lanes / (latency_ms / 1000)
    print(
        f"ceiling: the SDK alone, {lanes} threads in one process, no database: "
        f"{rate:.1f} calls/s ({100 * rate / ideal:.0f}% of ideal)",
        flush=True,
    )
    return rate


def against_bare_sdk(args, *, sim, benchmark, systems, run_rate: float) -> None:
    """Concord's rates as shares of a hand-written script's: the run alone (goal 0.9), and
    the whole `judge` command with its start-up (goal 0.75)."""
    from django.db import connection

    from judging.models import JudgeRun

    clean = JudgeRun.objects.filter(benchmark=benchmark).order_by("pk").first()
    bare = bare_sdk_rate(sim=sim, run=clean, lanes=args.concurrency)
    print(
        f"bare SDK: {args.concurrency} threads sharing one client, the same "
        f"{clean.tasks.count()} requests: {bare:.1f} calls/s",
        flush=True,
    )
    print(
        f"  the run: {run_rate:.1f} calls/s = {run_rate / bare:.2f} of the bare SDK (goal: >= 0.9)",
        flush=True,
    )
    database_url = None
    if connection.vendor == "postgresql":
        database_url = args.postgres.rsplit("/", 1)[0] + "/" + connection.settings_dict["NAME"]
    whole = command_rate(
        sim=sim,
        benchmark=benchmark,
        systems=systems,
        lanes=args.concurrency,
        database_url=database_url,
    )
    print(
        f"  the whole judge command, start-up included: {whole:.1f} tasks/s = "
        f"{whole / bare:.2f} of the bare SDK (goal: >= 0.75)",
        flush=True,
    )


def main() -> int:
    args = parse_args()
    if args.both:
        return run_both(args)
    print(host_report(), flush=True)
    old_config, workdir = setup_django(args.postgres)
    try:
        from django.db import connection

        from judging.models import PromptTemplate
        from judging.services.judge_versions import (
            CallSettings,
            VersionSettings,
            judge_config_save,
        )
        from judging.simulator import start_simulator

        print(
            f"database: {connection.vendor}; {args.cases} cases x {args.criteria_per_case} "
            f"criteria, {args.systems} systems; simulator {args.latency_ms:g} ms, "
            f"{args.concurrency} lanes",
            flush=True,
        )
        started = time.perf_counter()
        benchmark, systems = make_benchmark(args)
        print(f"setup: {time.perf_counter() - started:.2f} s", flush=True)
        if args.simulator_process:
            sim = SimulatorProcess(latency_ms=args.latency_ms, retry_after=args.retry_after)
        else:
            sim = start_simulator(latency_ms=args.latency_ms, retry_after=args.retry_after)
        try:
            config, _, _ = judge_config_save(
                name="throughput",
                settings=VersionSettings(
                    model="concord-sim",
                    base_url=sim.base_url,
                    prompt=PromptTemplate.objects.get(name="judge-zh", version=1),
                ),
                calls=CallSettings(
                    max_concurrency=args.concurrency,
                    timeout_seconds=10,
                    max_attempts=8,
                    backoff_seconds=0.2,
                    is_simulated=True,
                ),
            )
            common = {
                "args": args,
                "sim": sim,
                "benchmark": benchmark,
                "systems": systems,
                "config": config,
                "breakdown": args.breakdown,
            }
            ok, clean_rate = judge_once(
                label="clean run",
                fresh_calls=False,
                top=args.profile,
                goal_note="goal: >= 85% of ideal",
                **common,
            )
            sim.configure(rate_429=args.rate_429, rate_malformed=args.rate_malformed)
            faults_ok, _ = judge_once(
                label=(
                    f"faults ({args.rate_429:.0%} 429 with Retry-After {args.retry_after:g} s, "
                    f"{args.rate_malformed:.0%} malformed), fresh calls"
                ),
                fresh_calls=True,
                top=0,
                # A 429 holds its lane back for the Retry-After: this run's goal is that
                # every fault is retried and accounted for, not its speed.
                goal_note="the goal here: every fault retried and accounted for",
                **common,
            )
            ok = ok and faults_ok
            sim.configure(rate_429=0.0, rate_malformed=0.0)
            sdk_ceiling(sim=sim, lanes=args.concurrency, latency_ms=args.latency_ms)
            against_bare_sdk(
                args, sim=sim, benchmark=benchmark, systems=systems, run_rate=clean_rate
            )
        finally:
            sim.stop()
        print(
            f"reference scripts: at most {REFERENCE_CALLS_PER_SECOND} calls/s "
            f"(clean run here: {clean_rate:.0f} calls/s, "
            f"{clean_rate / REFERENCE_CALLS_PER_SECOND:.0f}x)"
        )
        return 0 if ok else 1
    finally:
        teardown_django(old_config, workdir)


if __name__ == "__main__":
    sys.exit(main())
