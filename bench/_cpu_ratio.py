"""Goal 2 of bench/load.py: gunicorn workers' CPU per annotation request against a view that
does nothing (/bench/ceiling, the stack's ceiling) and, printed beside it, against a view
that only checks a signed-in expert's permission (/bench/signed-in, the floor of every page
an expert opens). Both are mounted only with CONCORD_BENCH_CEILING."""

import time
from concurrent.futures import ThreadPoolExecutor

from bench._experts import Expert, Recorder, eager_experts, print_table
from bench._stack import Gunicorn, httpx, measure_phase

EXPERT_ENDPOINTS = ["next", "annotation page", "autosave", "submit"]
CEILING = "bare view"
FLOOR = "signed-in view"
CPU_RATIO_GOAL = 3.0


def hammer(base_url: str, recorder: Recorder, *, deadline: float) -> None:
    with httpx.Client(base_url=base_url, trust_env=False, timeout=30) as client:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                response = client.get("/bench/ceiling")
            except httpx.HTTPError as exc:
                recorder.error(CEILING, f"{type(exc).__name__}: {exc}")
                continue
            recorder.latency(CEILING, time.perf_counter() - started)
            if response.status_code != 200:
                recorder.error(CEILING, f"HTTP {response.status_code}")


def run_ceiling(args, server: Gunicorn) -> Recorder:
    recorder = Recorder()
    seconds = args.ceiling_duration if args.ceiling_duration is not None else args.duration
    seconds = seconds or args.annotation_duration or 10.0
    users = args.experts + args.researchers
    deadline = time.monotonic() + seconds
    with measure_phase(recorder, server), ThreadPoolExecutor(max_workers=users) as pool:
        for job in [
            pool.submit(hammer, server.base_url, recorder, deadline=deadline) for _ in range(users)
        ]:
            job.result()
    return recorder


def run_signed_in_floor(args, server: Gunicorn, seeded: dict) -> Recorder:
    """The experts, signed in, hammer a view that only checks their permission: what every
    page an expert opens costs before it does anything (session, user, permission)."""
    recorder = Recorder()
    experts = eager_experts(
        seeded["usernames"],
        base_url=server.base_url,
        recorder=recorder,
        keep_alive=args.keep_alive,
    )

    def hammer_signed_in(expert: Expert, deadline: float) -> None:
        while time.monotonic() < deadline:
            if expert.call(FLOOR, "GET", "/bench/signed-in") is None:
                time.sleep(0.5)  # an error is counted; do not spin on a broken view

    try:
        with ThreadPoolExecutor(max_workers=len(experts)) as pool:
            logins = list(pool.map(Expert.login, experts))
            ready = [e for e, ok in zip(experts, logins, strict=True) if ok]
            deadline = time.monotonic() + (args.ceiling_duration or args.annotation_duration or 10)
            with measure_phase(recorder, server):
                for job in [pool.submit(hammer_signed_in, e, deadline) for e in ready]:
                    job.result()
    finally:
        for expert in experts:
            expert.close()
    return recorder


def report_cpu_ratio(annotation: Recorder, ceiling: Recorder, floor: Recorder | None) -> None:
    requests = annotation.requests(EXPERT_ENDPOINTS)
    bare = ceiling.requests([CEILING])
    if not requests or not bare or annotation.worker_cpu is None:
        return
    per_request = annotation.worker_cpu / requests * 1000
    per_bare = ceiling.worker_cpu / bare * 1000
    ratio = per_request / per_bare
    print(
        f"\nannotation phase (experts only, {annotation.seconds:.1f} s): {requests} requests, "
        f"{annotation.submits} submits, errors: {sum(annotation.errors.values())}"
    )
    if annotation.cpu_line:
        print(annotation.cpu_line)
    print_table(annotation, EXPERT_ENDPOINTS)
    signed_in = floor.requests([FLOOR]) if floor is not None else 0
    if signed_in and floor.worker_cpu is not None:
        per_floor = floor.worker_cpu / signed_in * 1000
        print(
            f"signed-in view (session, user, permission; nothing else), "
            f"{sum(floor.errors.values())} errors: {per_floor:.2f} ms of worker CPU per "
            f"request, {per_floor / per_bare:.2f} x the bare view; an annotation request is "
            f"{per_request / per_floor:.2f} x the signed-in view"
        )
    print(
        f"goal 2: gunicorn worker CPU per annotation request {per_request:.2f} ms, per "
        f"bare-view request {per_bare:.2f} ms: ratio {ratio:.2f} (goal <= "
        f"{CPU_RATIO_GOAL:g}: {'met' if ratio <= CPU_RATIO_GOAL else 'missed'})"
    )
