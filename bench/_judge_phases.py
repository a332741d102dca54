"""Where the judge lanes spend their time, for bench/judge_throughput.py: phase timings
(--breakdown) and a cProfile of the lane threads (--profile). Only the bench uses this;
nothing is wrapped unless asked for."""

import cProfile
import io
import pstats
import threading
import time
from collections import defaultdict
from contextlib import contextmanager


class Phases:
    """Seconds the lane threads spend in each phase, summed over lanes (lane-seconds)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seconds: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)

    def wrap(self, module, name: str, label: str | None = None) -> None:
        original = getattr(module, name)
        label = label or name

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - started
                with self.lock:
                    self.seconds[label] += elapsed
                    self.counts[label] += 1

        setattr(module, name, timed)

    def report(self, lanes: int, wall: float) -> None:
        total = lanes * wall
        print(
            f"  time by phase, summed over the threads of this process (lanes, feeder,"
            f" writer; {lanes} lanes x {wall:.2f} s = {total:.1f} lane-s):"
        )
        for label, seconds in sorted(self.seconds.items(), key=lambda kv: -kv[1]):
            count = self.counts[label]
            print(
                f"    {label:<22} {seconds:8.1f} lane-s {100 * seconds / total:5.1f}%  "
                f"{count:6d} calls, {1000 * seconds / max(count, 1):7.1f} ms each"
            )


def lane_modules() -> list:
    """The modules of the lane pool (first: its lanes, feeder and idle waits), of the slots
    and claims, and of the per-task work."""
    from judging.services import claims, execution, lane_pool

    return [lane_pool, claims, execution]


PHASES = [
    "lane_slot_take",
    "lane_slot_renew",
    "tasks_claim",
    "task_lease_keep",
    "criteria_load",
    "_prompt_criteria",
    "call_chat",
    "task_prepare",
    "cached_reuse",
    "attempt_succeeded",
    "attempt_failed",
    "run_finish_if_complete",
]


@contextmanager
def instrumented(enabled: bool):
    """Time the lanes' phases by wrapping module-level names where they are called from
    (every call goes through exactly one module's global, so nothing is counted twice)."""
    if not enabled:
        yield None
        return
    modules = lane_modules()
    saved = [(m, n, getattr(m, n)) for m in modules for n in PHASES if hasattr(m, n)]
    phases = Phases()
    for module, name, _ in saved:
        phases.wrap(module, name)
    # time.sleep in the lane loop is a lane's idle wait (retries not yet due, or tasks
    # held by other lanes)
    loop = modules[0]
    real_time = loop.time

    class _Time:
        def __getattr__(self, attr):
            return getattr(real_time, attr)

        @staticmethod
        def sleep(seconds):
            started = time.perf_counter()
            real_time.sleep(seconds)
            with phases.lock:
                phases.seconds["idle sleep"] += time.perf_counter() - started
                phases.counts["idle sleep"] += 1

    loop.time = _Time()
    try:
        yield phases
    finally:
        for module, name, original in saved:
            setattr(module, name, original)
        loop.time = real_time


@contextmanager
def profiled(top: int):
    """cProfile every lane thread (the pool looks _lane up when it starts its threads)."""
    if not top:
        yield
        return
    loop = lane_modules()[0]
    original = loop._lane
    profiles: list[cProfile.Profile] = []
    lock = threading.Lock()

    def lane(*args, **kwargs):
        profile = cProfile.Profile()
        with lock:
            profiles.append(profile)
        profile.enable()
        try:
            return original(*args, **kwargs)
        finally:
            profile.disable()

    loop._lane = lane
    try:
        yield
    finally:
        loop._lane = original
        if profiles:
            out = io.StringIO()
            stats = pstats.Stats(profiles[0], stream=out)
            for profile in profiles[1:]:
                stats.add(profile)
            stats.sort_stats("cumulative").print_stats(top)
            stats.sort_stats("tottime").print_stats(top)
            print("  lane threads, cProfile (by cumulative, then own time; summed over lanes):")
            print("\n".join("    " + line for line in out.getvalue().splitlines()))
