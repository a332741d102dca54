"""The round opening of bench/load.py: every expert, signed in, asks for the next item of the
freshly opened round at the same moment (a barrier releases them together) and opens the
page it leads to; then every item is checked against the round's rater count.

One burst is 50 requests, so its p95 is its third-slowest: the opening is repeated on fresh
rounds of the same pool (--bursts) and the goal is read on all their requests together."""

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from bench._experts import Expert, Recorder, eager_experts, percentile, print_table
from bench._stack import CpuMeter

BURST_NEXT, BURST_PAGE = "burst next", "burst first page"
BURST_GOAL_MS = 300


def open_rounds(count: int, round_id: int) -> list[int]:
    """`count` more rounds like `round_id` (same benchmark, systems, pool and rater count),
    untouched, for further openings."""
    from annotation.models import ReviewRound, System
    from annotation.services.review_rounds import round_open

    first = ReviewRound.objects.get(pk=round_id)
    return [
        round_open(
            benchmark=first.benchmark,
            name=f"{first.name} opening {n + 2}",
            systems=list(
                System.objects.filter(responses__case__benchmark=first.benchmark).distinct()
            ),
            experts=list(first.experts.all()),
            fraction=first.fraction,
            raters_per_item=first.raters_per_item,
        ).pk
        for n in range(count)
    ]


def run_bursts(args, server, seeded: dict) -> tuple[Recorder, list[int]]:
    """The opening of the seeded round, then of --bursts - 1 fresh ones; one recorder for
    all, and the rounds opened."""
    rounds = [seeded["round_id"], *open_rounds(args.bursts - 1, seeded["round_id"])]
    recorder = Recorder()
    for round_id in rounds:
        run_burst(args, server, round_id, seeded["usernames"], recorder)
    return recorder, rounds


def run_burst(args, server, round_id: int, usernames: list[str], recorder: Recorder) -> None:
    """Every expert asks for the next item of the freshly opened round at the same moment,
    then opens the page it leads to."""
    experts = eager_experts(
        usernames,
        base_url=server.base_url,
        recorder=recorder,
        keep_alive=max(args.keep_alive, 30),
    )
    gate = None
    path = f"/review/rounds/{round_id}/next/"

    def open_round(expert: Expert) -> None:
        gate.wait(timeout=120)
        answer = expert.call(
            BURST_NEXT,
            "POST",
            path,
            data={"csrfmiddlewaretoken": expert.client.cookies.get("csrftoken", "")},
            headers={"Referer": server.base_url + path},
        )
        if answer is not None and expert._is_work(answer):
            expert.call(BURST_PAGE, "GET", answer.headers["location"])

    try:
        with ThreadPoolExecutor(max_workers=len(experts)) as pool:
            logins = list(pool.map(Expert.login, experts))
            ready = [e for e, ok in zip(experts, logins, strict=True) if ok]
            gate = threading.Barrier(len(ready))
            cpu = CpuMeter(server.process.pid)
            started = time.perf_counter()
            list(pool.map(open_round, ready))
            seconds = time.perf_counter() - started
            recorder.seconds += seconds
            recorder.cpu_line = cpu.report(seconds)
            values = recorder.latencies.get(BURST_NEXT, [])[-len(ready) :]
            if values:
                print(
                    f"  opening of round {round_id}: 'next item' p95 "
                    f"{percentile(values, 95) * 1000:.0f} ms; {recorder.cpu_line}",
                    flush=True,
                )
    finally:
        for expert in experts:
            expert.close()


def raters_exceeded(round_id: int) -> tuple[int, int, int]:
    """(items over the rater count, items handed out, assignments) of the round."""
    from annotation.models import Assignment, ReviewItem, ReviewRound

    raters = ReviewRound.objects.get(pk=round_id).raters_per_item
    per_item = Counter(
        Assignment.objects.filter(item__round_id=round_id)
        .exclude(status=Assignment.Status.SKIPPED)
        .values_list("item_id", flat=True)
    )
    over = sum(1 for n in per_item.values() if n > raters)
    over += ReviewItem.objects.filter(round_id=round_id, assigned_count__gt=raters).count()
    return over, len(per_item), sum(per_item.values())


def report_burst(args, burst: Recorder, rounds: list[int]) -> bool:
    over = items = assignments = 0
    for round_id in rounds:
        found = raters_exceeded(round_id)
        over, items, assignments = over + found[0], items + found[1], assignments + found[2]
    errors = sum(burst.errors.values())
    values = burst.latencies.get(BURST_NEXT, [])
    p95 = percentile(values, 95) * 1000 if values else float("nan")
    print(
        f"\nround opening, {len(rounds)} times: {args.experts} experts ask for the next item "
        f"at the same moment: {assignments} assignments on {items} distinct items, items "
        f"beyond {args.raters} raters: {over}; errors: {errors}"
    )
    for sample in burst.samples:
        print(f"  e.g. {sample}")
    print_table(burst, [BURST_NEXT, BURST_PAGE])
    met = p95 < BURST_GOAL_MS and not over and not errors
    print(
        f"goal 3: 'next item' p95 under {BURST_GOAL_MS} ms with no item beyond the rater "
        f"count: {p95:.0f} ms over {len(values)} requests, {over} over "
        f"({'met' if met else 'missed'})"
    )
    return not errors and not over
