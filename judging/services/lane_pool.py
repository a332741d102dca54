"""A lane pool: the lanes of one run in one process, as threads.

The lanes only make calls. A feeder (the pool's own thread) claims tasks for all of them in
batches, with their criteria, and a writer records their outcomes in batches, so a lane's
slot spends its time on the endpoint rather than waiting for the database: with 32 lanes at
250 ms a call, one database round trip per call and lane would cost more than the calls.

Tasks are leased to the pool. A pool holds at most one and a half claimed tasks per lane
that are not yet being called, and gives such tasks back when it stops, so a paused run or
a pool that winds down leaves no task leased to no one until its lease runs out.
"""

import logging
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from django.db import connection

from judging.models import JudgeRun, JudgeTask
from judging.services import claims
from judging.services.execution import (
    Lane,
    Prepared,
    attempt_broke_off,
    criteria_load,
    lane_for,
    prepared_execute,
    task_execute,
    task_prepare,
)
from judging.services.outage import PROBE, Gate
from judging.services.outcomes import cached_reuse
from judging.services.writer import Writer

STATUS_CHECK_SECONDS = 1.0  # how soon a pool notices a pause or a cancel
SLOT_POLL_SECONDS = 0.1
# How long an interrupted pool lets the calls in flight finish before it abandons them.
INTERRUPT_GRACE_SECONDS = 5.0

Work = JudgeTask | Prepared  # a claimed task, prepared for its call when it is a judge task

logger = logging.getLogger(__name__)


class _Ready:
    """Claimed tasks waiting for a lane."""

    def __init__(self) -> None:
        self._tasks: deque[Work] = deque()
        self._changed = threading.Condition()
        self.closed = False
        self.lanes = 0  # lanes holding a slot
        self.reported = 0  # lanes that tried to take a slot
        self.retiring = 0  # lanes to stop after their call, their slots handed over
        self.lane_tokens: list[str] = []  # of the lanes that took a slot

    def put_all(self, tasks: list[Work]) -> None:
        with self._changed:
            self._tasks.extend(tasks)
            self._changed.notify_all()

    def take(self, timeout: float) -> Work | None:
        """The next task; None after `timeout` seconds without one, or once closed."""
        with self._changed:
            if not self._tasks and not self.closed:
                self._changed.wait(timeout)
            if self.closed or not self._tasks:
                return None
            task = self._tasks.popleft()
            self._changed.notify_all()
            return task

    def _wanted(self) -> int:
        # Claims come in batches: once fewer tasks wait than there are lanes, the queue
        # is topped up to one and a half per lane, so a lane always finds a task even
        # while a claim waits for the database, and a claim serves several lanes.
        if len(self._tasks) >= self.lanes:
            return 0
        return self.lanes + (self.lanes + 1) // 2 - len(self._tasks)

    def wanted(self) -> int:
        with self._changed:
            return self._wanted()

    def wait_for_room(self, timeout: float) -> None:
        with self._changed:
            if self._wanted() <= 0:
                self._changed.wait(timeout)

    def lane_reported(self, holding: bool, token: str = "") -> None:
        with self._changed:
            if holding:
                self.lane_tokens.append(token)
            self.reported += 1
            self.lanes += holding
            self._changed.notify_all()

    def lane_left(self) -> None:
        with self._changed:
            self.lanes -= 1
            self._changed.notify_all()

    def wait_for_lanes(self, count: int) -> None:
        """Until every lane has tried for a slot, or one holds a slot."""
        with self._changed:
            self._changed.wait_for(lambda: self.reported >= count or self.lanes > 0)

    def queued(self) -> int:
        with self._changed:
            return len(self._tasks)

    def surplus(self, keep: int | None = None) -> list[Work]:
        """Tasks beyond what the lanes still here want (lanes stopped, their slots handed
        over; or `keep`, while the endpoint is down): the pool gives them back."""
        with self._changed:
            if keep is None:
                keep = self.lanes + (self.lanes + 1) // 2
            extra = []
            while len(self._tasks) > keep:
                extra.append(self._tasks.pop())
            return extra

    def retire(self, count: int) -> None:
        with self._changed:
            self.retiring += count

    def lane_may_stay(self) -> bool:
        with self._changed:
            if self.retiring > 0 and self.lanes > 1:
                self.retiring -= 1
                return False
            return True

    def close(self) -> list[Work]:
        """Stop handing out tasks; returns the ones no lane took."""
        with self._changed:
            self.closed = True
            left = list(self._tasks)
            self._tasks.clear()
            self._changed.notify_all()
            return left


def pool_run(
    *,
    run_id: int,
    lanes: int,
    max_seconds: float | None = None,
    joining: Sequence[tuple[Any, int]] = (),
    wait_for_slots: bool = False,
    stop: threading.Event | None = None,
) -> str:
    """Work on the run with `lanes` lane threads until nothing is left ("finished"), the run
    is paused or cancelled ("stopped"), `max_seconds` pass ("timeout": the caller starts the
    pool again), or every lane slot is taken ("surplus": enough lanes are working already).

    `joining` are (event, lanes) of processes starting up to share the work: this pool
    works with all the lanes until a process sets its event, then stops that many lanes
    after their calls, handing their slots over. The lanes of a joining pool
    (`wait_for_slots`) wait for those slots instead of giving up at once.

    Once `stop` is set ("interrupted") the pool claims nothing more, lets the calls in
    flight finish for a few seconds and records their outcomes; calls still unanswered
    then are abandoned, their tasks and slots given back."""
    run = JudgeRun.objects.select_related("judge_version__prompt").get(pk=run_id)
    ready = _Ready()
    writer = Writer()
    gate = Gate(run_id=run_id, lanes=lanes)
    criteria: dict[int, list] = {}
    token = lane_for(run).token  # the pool's: its tasks are leased to it
    threads = [
        threading.Thread(
            target=_lane,
            args=(run, ready, writer, gate, wait_for_slots),
            name="judge-lane",
            daemon=True,
        )
        for _ in range(lanes)
    ]
    outcome = "surplus"
    try:
        for thread in threads:
            thread.start()
        ready.wait_for_lanes(lanes)
        if ready.lanes:
            outcome = _feed(
                run, ready, writer, token, criteria, max_seconds, list(joining), lanes, stop, gate
            )
    finally:
        claims.tasks_release(run_id=run_id, token=token, tasks=_tasks(ready.close()))
        interrupted = stop is not None and stop.is_set()
        deadline = time.monotonic() + INTERRUPT_GRACE_SECONDS
        for thread in threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()) if interrupted else None)
        writer.close()
        gate.wound_down()
        if any(thread.is_alive() for thread in threads):
            # Abandoned calls: their outcomes, should they come, are no longer written.
            claims.leases_release(run_id=run_id, token=token)
            claims.lane_slots_release(run_id=run_id, tokens=list(ready.lane_tokens))
            outcome = "interrupted"
        if outcome == "finished":
            claims.run_finish_if_complete(run_id=run_id)
        connection.close()
    return outcome


def _feed(
    run: JudgeRun,
    ready: _Ready,
    writer: Writer,
    token: str,
    criteria: dict,
    max_seconds: float | None,
    joining: list[tuple[Any, int]],
    lanes: int,
    stop: threading.Event | None,
    gate: Gate,
) -> str:
    started = checked = time.monotonic()
    while True:
        if stop is not None and stop.is_set():
            return "interrupted"
        for joined in [j for j in joining if j[0].is_set()]:
            joining.remove(joined)
            ready.retire(joined[1])
        claims.tasks_release(run_id=run.pk, token=token, tasks=_tasks(ready.surplus()))
        now = time.monotonic()
        if now - checked >= STATUS_CHECK_SECONDS:
            checked = now
            if not JudgeRun.objects.filter(pk=run.pk, status=JudgeRun.Status.RUNNING).exists():
                return "stopped"
        if max_seconds is not None and now - started > max_seconds:
            return "timeout"
        if ready.lanes == 0:
            if ready.reported >= lanes:
                return "stopped"  # every lane lost its slot
            time.sleep(SLOT_POLL_SECONDS)  # the lanes still wait for slots handed over
            continue
        if gate.closed:
            # Only the probe calls: one task waits for it, the others go back meanwhile.
            claims.tasks_release(run_id=run.pk, token=token, tasks=_tasks(ready.surplus(keep=1)))
            if ready.queued():
                time.sleep(SLOT_POLL_SECONDS)
                continue
            wanted = 1
        else:
            wanted = ready.wanted()
        if wanted <= 0:
            ready.wait_for_room(timeout=STATUS_CHECK_SECONDS)
            continue
        claimed = claims.tasks_claim(run=run, token=token, limit=wanted)
        if claimed is None:
            return "finished"
        if isinstance(claimed, float):
            time.sleep(claimed)
            continue
        ready.put_all(_prepared(run, claimed, criteria, writer))


def _prepared(run: JudgeRun, tasks: list[JudgeTask], criteria: dict, writer: Writer) -> list[Work]:
    """Judge tasks with their requests built and the cache asked for the whole batch at
    once (the answers found there go straight to the writer); other tasks as they are."""
    if run.kind != JudgeRun.Kind.JUDGE or run.settings_snapshot.get("ensemble"):
        return list(tasks)
    criteria_load(criteria, {task.rubric_version_id for task in tasks})
    prepared = [
        task_prepare(run=run, task=task, criteria=criteria.get(task.rubric_version_id, []))
        for task in tasks
    ]
    if run.fresh_calls:
        return list(prepared)
    reused = cached_reuse(prepared=prepared, record=writer.put)
    return [p for p in prepared if p.task.pk not in reused]


def _task_of(work: Work) -> JudgeTask:
    return work.task if isinstance(work, Prepared) else work


def _tasks(work: list[Work]) -> list[JudgeTask]:
    return [_task_of(item) for item in work]


def _lane(run: JudgeRun, ready: _Ready, writer: Writer, gate: Gate, wait_for_slots: bool) -> None:
    lane: Lane = lane_for(run)
    lane.writer = writer
    lane.gate = gate
    holding = reported = False
    try:
        holding = claims.lane_slot_take(run=run, token=lane.token)
        deadline = time.monotonic() + claims.lease_seconds(run)
        while wait_for_slots and not holding and not ready.closed and time.monotonic() < deadline:
            time.sleep(SLOT_POLL_SECONDS)
            holding = claims.lane_slot_take(run=run, token=lane.token)
        ready.lane_reported(holding, lane.token)
        reported = True
        if not holding:
            return
        renew_every = claims.lease_seconds(run) / 3
        renewed = time.monotonic()
        while True:
            turn = gate.turn(stopping=lambda: ready.closed, timeout=renew_every)
            work = ready.take(timeout=renew_every) if turn else None
            if time.monotonic() - renewed >= renew_every:
                renewed = time.monotonic()
                claims.lane_slot_renew(run=run, token=lane.token)
            if work is None:
                if turn == PROBE:
                    gate.probe_unused()
                if ready.closed or not ready.lane_may_stay():
                    return
                continue
            task = _task_of(work)
            try:
                claims.task_lease_keep(run=run, task=task)
                if isinstance(work, Prepared):
                    prepared_execute(run=run, prepared=work, lane=lane)
                else:
                    task_execute(run=run, task=task, lane=lane)
            except Exception as exc:
                logger.exception("judge task %s: the attempt broke off", task.pk)
                try:
                    attempt_broke_off(run=run, task=task, lane=lane, error=exc)
                except Exception:
                    # Its lease runs out; the next claim retries it or, with no attempt
                    # left, fails it (see claims.tasks_claim).
                    logger.exception("judge task %s: the failure could not be recorded", task.pk)
            if turn == PROBE:
                gate.probe_unused()  # if the probe broke off before its call, another lane may
            if not ready.lane_may_stay():
                return
    finally:
        if not reported:
            ready.lane_reported(False)
        if holding:
            ready.lane_left()
            claims.lane_slot_release(run_id=run.pk, token=lane.token)
        if lane.client is not None:
            lane.client.close()
        connection.close()
