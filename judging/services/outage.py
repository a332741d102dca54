"""The endpoint gate of a lane pool: when many calls in a row fail to connect or get a
5xx, the endpoint is down, not the tasks bad. The pool then stops calling with every lane,
lets one call through now and then (a probe, with growing pauses) and opens again as soon
as the endpoint answers anything. Attempts lost to the outage are kept in the log but use
up no task's retry budget, so an outage of any length fails no task.
"""

import threading
import time
from collections import Counter

from django.db.models import F
from django.utils import timezone

from judging.llm_client import CallFailed
from judging.models import JudgeAttempt, JudgeRun, JudgeTask

PROBE_FIRST_SECONDS = 1.0
PROBE_CAP_SECONDS = 10.0
WAIT_SLICE_SECONDS = 0.5  # how soon a waiting lane notices that its pool closed

OPEN, PROBE = "open", "probe"


def endpoint_down(failure: CallFailed) -> bool:
    """A failure that says the endpoint is unreachable or broken, not that a reply was bad."""
    if not failure.retryable:
        return False
    if failure.outcome == JudgeAttempt.Outcome.CONNECTION:
        return True
    return failure.outcome == JudgeAttempt.Outcome.HTTP_ERROR and (failure.http_status or 0) >= 500


def streak_needed(lanes: int) -> int:
    # Enough that a few unlucky calls do not stop the run, few enough that an outage is
    # noticed before the lanes burn through every task's attempts.
    return max(3, min(lanes, 10))


class Gate:
    def __init__(self, *, run_id: int, lanes: int) -> None:
        self.run_id = run_id
        self.needed = streak_needed(lanes)
        self._changed = threading.Condition()
        self.streak: list[int] = []  # tasks whose calls failed at the endpoint, in a row
        self.closed = False
        self.probing = False
        self.probes = 0
        self.next_probe = 0.0

    def turn(self, *, stopping, timeout: float) -> str | None:
        """OPEN: call as usual; PROBE: this lane's call is the probe; None: not now (the
        endpoint is down, or `stopping()` says the pool is winding down)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.closed and not stopping():
                now = time.monotonic()
                if not self.probing and now >= self.next_probe:
                    self.probing = True
                    return PROBE
                if now >= deadline:
                    return None
                wait = min(WAIT_SLICE_SECONDS, deadline - now, max(0.01, self.next_probe - now))
                self._changed.wait(wait)
            return None if stopping() else OPEN

    def probe_unused(self) -> None:
        """The probing lane found no task to call with: another lane may probe."""
        with self._changed:
            self.probing = False
            self._changed.notify_all()

    def answered(self) -> bool:
        """The endpoint answered a call (whatever the reply). True when that reopened it."""
        with self._changed:
            self.streak.clear()
            reopened = self.closed
            self.closed = self.probing = False
            self.probes = 0
            self._changed.notify_all()
        if reopened:
            JudgeRun.objects.filter(pk=self.run_id).update(endpoint_down_since=None)
        return reopened

    def failed(self, task: JudgeTask, failure: CallFailed) -> tuple[bool, list[int]]:
        """A call failed. Returns whether the attempt counts against the task's budget, and
        the tasks whose earlier attempts are to be given back (the streak that closed the
        gate, once it closes)."""
        if not endpoint_down(failure):
            self.answered()  # a bad reply is still an answer: the endpoint is up
            return True, []
        refund: list[int] = []
        with self._changed:
            if self.closed:
                self.probing = False
                self.probes += 1
                delay = min(PROBE_CAP_SECONDS, PROBE_FIRST_SECONDS * 2 ** (self.probes - 1))
                self.next_probe = time.monotonic() + delay
                self._changed.notify_all()
                return False, []
            self.streak.append(task.pk)
            if len(self.streak) < self.needed:
                return True, []
            refund, self.streak = self.streak[:-1], []
            self.closed = True
            self.probes = 0
            self.next_probe = time.monotonic() + PROBE_FIRST_SECONDS
        JudgeRun.objects.filter(pk=self.run_id, endpoint_down_since__isnull=True).update(
            endpoint_down_since=timezone.now()
        )
        return False, refund

    def wound_down(self) -> None:
        """The pool stops: the run no longer waits on it."""
        if self.closed:
            JudgeRun.objects.filter(pk=self.run_id).update(endpoint_down_since=None)


def budget_refund(rows: list, *, task_ids: list[int]) -> None:
    """Run by the writer, after the failures it refunds: each of those attempts stays in
    the log but no longer counts; a task they made fail is pending again."""
    for times, ids in _by_count(task_ids).items():
        JudgeTask.objects.filter(pk__in=ids).update(
            attempts_spent_before=F("attempts_spent_before") + times
        )
    JudgeTask.objects.filter(pk__in=set(task_ids), status=JudgeTask.Status.FAILED).update(
        status=JudgeTask.Status.PENDING, finished=None, last_error=""
    )


def _by_count(task_ids: list[int]) -> dict[int, list[int]]:
    grouped: dict[int, list[int]] = {}
    for task_id, times in Counter(task_ids).items():
        grouped.setdefault(times, []).append(task_id)
    return grouped
