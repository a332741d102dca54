"""What the host is like when a benchmark starts: how busy it already is, and how fast one
core runs Python. Hosts of the same kind differ in speed (seen: by four times), so figures
are printed with the speed they were measured at."""

import time
from pathlib import Path

LOOP_STEPS = 10_000_000


def machine_ticks() -> tuple[int, int]:
    """All and busy CPU ticks of the machine since boot (user to steal; guest time is
    already counted in user)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return sum(values), sum(values) - values[3] - values[4]


def machine_busy(seconds: float = 1.0) -> float | None:
    """Share of the machine's CPU time busy over `seconds`: other work skews the figures."""
    if not Path("/proc/stat").exists():
        return None
    total, busy = machine_ticks()
    time.sleep(seconds)
    total2, busy2 = machine_ticks()
    return (busy2 - busy) / max(1, total2 - total)


def loop_seconds(repeats: int = 3) -> float:
    """The fastest of `repeats` timings of an empty Python loop of LOOP_STEPS steps."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(LOOP_STEPS):
            pass
        best = min(best, time.perf_counter() - started)
    return best


def host_report() -> str:
    """One line: the machine's load before the run and the speed of one core."""
    parts = []
    busy = machine_busy()
    if busy is not None:
        parts.append(
            f"machine busy before the run: {busy:.0%}"
            + (" (other work is running: the figures will be skewed)" if busy > 0.2 else "")
        )
    parts.append(f"host speed: an empty Python loop of 10M steps takes {loop_seconds():.2f} s")
    return "; ".join(parts)
