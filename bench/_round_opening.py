"""The round opening of bench/load.py: every expert, signed in, asks for the next item of the
freshly opened round at the same moment (a barrier releases them together) and opens the
page it leads to; then every item is checked against the round's rater count."""

import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from bench._experts import Expert, Recorder, percentile, print_table
from bench._stack import CpuMeter

BURST_NEXT, BURST_PAGE = "burst next", "burst first page"
BURST_GOAL_MS = 300


def run_burst(args, server, seeded: dict) -> Recorder:
    """Every expert asks for the next item of the freshly opened round at the same moment,
    then opens the page it leads to."""
    recorder = Recorder()
    experts = [
        Expert(
            base_url=server.base_url,
            username=name,
            recorder=recorder,
            seed=i,
            think=0,
            keep_alive=max(args.keep_alive, 30),
        )
        for i, name in enumerate(seeded["usernames"])
    ]
    gate = None
    path = f"/review/rounds/{seeded['round_id']}/next/"

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
            recorder.seconds = time.perf_counter() - started
            recorder.cpu_line = cpu.report(recorder.seconds)
    finally:
        for expert in experts:
            expert.close()
    return recorder


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


def report_burst(args, burst: Recorder, round_id: int) -> bool:
    over, items, assignments = raters_exceeded(round_id)
    errors = sum(burst.errors.values())
    values = burst.latencies.get(BURST_NEXT, [])
    p95 = percentile(values, 95) * 1000 if values else float("nan")
    print(
        f"\nround opening: {args.experts} experts ask for the next item at the same moment: "
        f"{assignments} assignments on {items} distinct items, items beyond "
        f"{args.raters} raters: {over}; errors: {errors}"
    )
    for sample in burst.samples:
        print(f"  e.g. {sample}")
    if burst.cpu_line:
        print(burst.cpu_line)
    print_table(burst, [BURST_NEXT, BURST_PAGE])
    met = p95 < BURST_GOAL_MS and not over and not errors
    print(
        f"goal 3: 'next item' p95 under {BURST_GOAL_MS} ms with no item beyond the rater "
        f"count: {p95:.0f} ms, {over} over ({'met' if met else 'missed'})"
    )
    return not errors and not over
