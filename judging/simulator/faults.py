"""Fault draws, per-request attempt counters and the statistics of a running server.

The k-th identical request (same body hash) draws its fault from hash(body, k), so a run
is reproducible from a fresh (or reset) server, and a retried request gets a new,
independent draw: with a 10% 429 rate a retry usually succeeds.
"""

import threading
from collections import Counter, OrderedDict

from .settings import FAULT_KINDS
from .text import unit

MAX_TRACKED = 100_000  # request hashes whose attempts are remembered (least recent dropped)


def draw_fault(rates: dict[str, float], request_hash: str, attempt: int) -> str | None:
    """One of FAULT_KINDS, or None, for the given attempt of the request."""
    u = unit(request_hash, "fault", attempt)
    edge = 0.0
    for kind in FAULT_KINDS:
        edge += rates.get(kind, 0.0)
        if u < edge:
            return kind
    return None


class AttemptCounter:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, int] = OrderedDict()

    def next(self, request_hash: str) -> int:
        """0 for the first time a hash is seen, then 1, 2, ..."""
        with self._lock:
            attempt = self._seen.pop(request_hash, -1) + 1
            self._seen[request_hash] = attempt
            if len(self._seen) > MAX_TRACKED:
                self._seen.popitem(last=False)
            return attempt

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()


class Stats:
    """Counts of a running server; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._in_flight = 0
        self._zero()

    def _zero(self) -> None:
        self.connections = 0  # TCP connections accepted (keep-alive reuses them)
        self.requests = 0  # chat completions received
        self.retries = 0  # of which repeats of an identical earlier request
        self.statuses: Counter[int] = Counter()
        self.faults: Counter[str] = Counter()
        self.kinds: Counter[str] = Counter()
        self.max_in_flight = self._in_flight

    def begin(self) -> int:
        """Count a request coming in; returns how many came in before it."""
        with self._lock:
            self._in_flight += 1
            self.requests += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            return self.requests - 1

    def connection(self) -> None:
        with self._lock:
            self.connections += 1

    def end(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def record(self, *, status: int | None = None, fault=None, kind=None, retry=False) -> None:
        with self._lock:
            if status is not None:
                self.statuses[status] += 1
            if fault:
                self.faults[fault] += 1
            if kind:
                self.kinds[kind] += 1
            if retry:
                self.retries += 1

    def reset(self) -> None:
        with self._lock:
            self._zero()

    def snapshot(self) -> dict:
        with self._lock:
            return {
                "connections": self.connections,
                "requests": self.requests,
                "retries": self.retries,
                "in_flight": self._in_flight,
                "max_in_flight": self.max_in_flight,
                "faults": {kind: self.faults[kind] for kind in FAULT_KINDS},
                "statuses": {str(code): n for code, n in sorted(self.statuses.items())},
                "replies": dict(sorted(self.kinds.items())),
            }
