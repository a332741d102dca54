"""Lane slots and task leases: how lanes share a run's work without a coordinator.

A run has `max_concurrency` lane slots; a lane holds one while it works, so no more requests
are in flight than the config allows, whatever the number of processes and workers. A
claimed task carries a lease. If its holder dies (a killed worker), the lease runs out and
another lane claims the task again; the conditional writes in execution.py make sure a
task's result is written once, by the holder of the lease. A call its lane had sent when
the lease was taken back (the mark `JudgeTask.call_number`) is recorded as an "abandoned"
attempt, its prompt tokens estimated: the endpoint got it, so it counts in the run's cost.
"""

import random
import time
from datetime import timedelta

from django.db import connection, transaction
from django.db.models import F, Min, Q
from django.utils import timezone

from judging.models import JudgeAttempt, JudgeLane, JudgeRun, JudgeTask

LEASE_MARGIN_SECONDS = 10
IDLE_POLL_SECONDS = 0.2


def lease_seconds(run: JudgeRun) -> float:
    return float(run.settings_snapshot.get("timeout_seconds", 120)) + LEASE_MARGIN_SECONDS


def lane_slot_take(*, run: JudgeRun, token: str) -> bool:
    """Hold one of the run's lane slots (a free one, or one whose holder stopped renewing)."""
    now = timezone.now()
    free = JudgeLane.objects.filter(run=run).filter(
        Q(token="") | Q(expires__isnull=True) | Q(expires__lt=now)
    )
    slots = list(free.order_by("number"))
    # Lanes starting together try the free slots from different places instead of all
    # queueing on the first one.
    start = random.randrange(len(slots)) if slots else 0
    for slot in slots[start:] + slots[:start]:
        taken = JudgeLane.objects.filter(pk=slot.pk, token=slot.token, expires=slot.expires).update(
            token=token, expires=now + timedelta(seconds=lease_seconds(run))
        )
        if taken:
            return True
    return False


def lane_slot_renew(*, run: JudgeRun, token: str) -> None:
    JudgeLane.objects.filter(run=run, token=token).update(
        expires=timezone.now() + timedelta(seconds=lease_seconds(run))
    )


def lane_slot_release(*, run_id: int, token: str) -> None:
    JudgeLane.objects.filter(run_id=run_id, token=token).update(token="", expires=None)


def tasks_claim(*, run: JudgeRun, token: str, limit: int) -> list[JudgeTask] | float | None:
    """Up to `limit` tasks, leased to `token`, with the response and case their attempts
    read; or seconds to wait (retries not yet due, or tasks held by other lanes); or None
    when every task has ended."""
    now = timezone.now()
    claimable = Q(status=JudgeTask.Status.PENDING) & (
        Q(not_before__isnull=True) | Q(not_before__lte=now)
    ) | Q(status=JudgeTask.Status.RUNNING, lease_until__lt=now)
    with transaction.atomic():
        candidates = (
            JudgeTask.objects.filter(claimable, run_id=run.pk)
            .select_related("response__case", "case")
            .order_by("pk")
        )
        if connection.features.has_select_for_update_skip_locked:
            candidates = candidates.select_for_update(skip_locked=True, of=("self",))
        tasks = list(candidates[:limit])
        calls_abandoned([task for task in tasks if task.status == JudgeTask.Status.RUNNING])
        spent = _spent(run, tasks)
        if spent:
            _tasks_give_up(spent, now)
            tasks = [task for task in tasks if task not in spent]
            if not tasks:
                return 0.0  # claim again at once: others may be claimable
        if tasks:
            JudgeTask.objects.filter(pk__in=[task.pk for task in tasks]).update(
                status=JudgeTask.Status.RUNNING,
                lease_token=token,
                lease_until=now + timedelta(seconds=lease_seconds(run)),
                attempts=F("attempts") + 1,
            )
            claimed_at = time.monotonic()
            for task in tasks:
                task.attempts += 1
                task.lease_token = token
                task.claimed_at = claimed_at
            return tasks
    open_tasks = JudgeTask.objects.filter(
        run_id=run.pk, status__in=[JudgeTask.Status.PENDING, JudgeTask.Status.RUNNING]
    ).aggregate(
        retry_at=Min("not_before", filter=Q(status=JudgeTask.Status.PENDING)),
        lease_at=Min("lease_until", filter=Q(status=JudgeTask.Status.RUNNING)),
    )
    due = [t for t in (open_tasks["retry_at"], open_tasks["lease_at"]) if t is not None]
    if not due:
        return None
    return min(IDLE_POLL_SECONDS, max(0.05, (min(due) - now).total_seconds()))


def calls_abandoned(tasks, *, budget_kept: bool = False) -> set[int]:
    """Of leased tasks being taken back, those whose current attempt had sent its call
    get that attempt recorded as "abandoned", its prompt tokens (estimated from the
    request) added to the task's; returns their ids. `budget_kept`: the attempt uses up
    none of the task's retry budget (its lane was stopped on purpose). Tasks claimed but
    never called are left alone."""
    rows = []
    marked = set()
    now = timezone.now()
    for task in tasks:
        if not task.call_number or task.call_number != task.attempts:
            continue
        changes = {"call_number": 0, "prompt_tokens": F("prompt_tokens") + task.call_tokens}
        if budget_kept:
            changes["attempts_spent_before"] = F("attempts_spent_before") + 1
        if not JudgeTask.objects.filter(
            pk=task.pk,
            status=JudgeTask.Status.RUNNING,
            lease_token=task.lease_token,
            attempts=task.attempts,
            call_number=task.call_number,
        ).update(**changes):
            continue  # taken back by someone else meanwhile
        waited = (now - task.call_started).total_seconds() if task.call_started else 0
        rows.append(
            JudgeAttempt(
                task_id=task.pk,
                number=task.attempts,
                outcome=JudgeAttempt.Outcome.ABANDONED,
                error="the call was sent, but its lane stopped before the answer came",
                latency_ms=max(0, int(waited * 1000)),
                prompt_tokens=task.call_tokens,
                tokens_estimated=True,
            )
        )
        marked.add(task.pk)
    JudgeAttempt.objects.bulk_create(rows, ignore_conflicts=True)
    return marked


def _spent(run: JudgeRun, tasks: list[JudgeTask]) -> list[JudgeTask]:
    """Tasks taken back from a lane that stopped mid-attempt and have no attempt left."""
    max_attempts = int(run.settings_snapshot.get("max_attempts", 5))
    return [
        task
        for task in tasks
        if task.status == JudgeTask.Status.RUNNING and task.attempts_counted >= max_attempts
    ]


def _tasks_give_up(tasks: list[JudgeTask], now) -> None:
    # The lease ran out with no outcome recorded (the lane, its process or its database
    # connection died mid-attempt): that attempt counts, so nothing is leased forever.
    for task in tasks:
        n = task.attempts_counted
        JudgeTask.objects.filter(
            pk=task.pk, status=JudgeTask.Status.RUNNING, lease_token=task.lease_token
        ).update(
            status=JudgeTask.Status.FAILED,
            finished=now,
            lease_token="",
            lease_until=None,
            last_error=(
                f"attempt {n}: no outcome was recorded (its lane or worker stopped)"
                f" (gave up after {n} attempts)"
            ),
        )


def task_lease_keep(*, run: JudgeRun, task: JudgeTask) -> None:
    """A task that waited for a lane after its claim gets its full lease back before its
    call, so the lease always outlasts the call's timeout."""
    if time.monotonic() - getattr(task, "claimed_at", time.monotonic()) < LEASE_MARGIN_SECONDS / 2:
        return
    JudgeTask.objects.filter(
        pk=task.pk, status=JudgeTask.Status.RUNNING, lease_token=task.lease_token
    ).update(lease_until=timezone.now() + timedelta(seconds=lease_seconds(run)))


def tasks_release(*, run_id: int, token: str, tasks: list[JudgeTask]) -> None:
    """Give back claimed tasks no attempt was made at: pending again, the claim not counted
    as an attempt."""
    if not tasks:
        return
    JudgeTask.objects.filter(
        pk__in=[task.pk for task in tasks],
        run_id=run_id,
        status=JudgeTask.Status.RUNNING,
        lease_token=token,
    ).update(
        status=JudgeTask.Status.PENDING,
        lease_token="",
        lease_until=None,
        attempts=F("attempts") - 1,
    )


def run_finish_if_complete(*, run_id: int, also: str | None = None) -> bool:
    """Finish a running run (or one in the state `also`) that has no open task left."""
    with transaction.atomic():
        if JudgeTask.objects.filter(
            run_id=run_id, status__in=[JudgeTask.Status.PENDING, JudgeTask.Status.RUNNING]
        ).exists():
            return False
        return bool(
            JudgeRun.objects.filter(
                pk=run_id, status__in=[JudgeRun.Status.RUNNING, also or JudgeRun.Status.RUNNING]
            ).update(status=JudgeRun.Status.FINISHED, finished=timezone.now())
        )


def leases_release(*, run_id: int, token: str | None = None) -> int:
    """Give back the run's leased tasks (those leased to `token`, or all) and, without a
    token, its lane slots: nobody is working on the run any more (its command was
    interrupted), so nothing need wait for a lease to run out. A call already sent is
    recorded as an abandoned attempt that uses up none of the retry budget; a task claimed
    but not called is given back as if never claimed. An outcome that arrives later is not
    written, since the lease is no longer its lane's."""
    tasks = JudgeTask.objects.filter(run_id=run_id, status=JudgeTask.Status.RUNNING)
    if token is not None:
        tasks = tasks.filter(lease_token=token)
    with transaction.atomic():
        # A call already sent counts (its attempt "abandoned"), but not against the budget.
        called = calls_abandoned(
            tasks.filter(call_number__gt=0, call_number=F("attempts")), budget_kept=True
        )
        released = JudgeTask.objects.filter(pk__in=called, status=JudgeTask.Status.RUNNING).update(
            status=JudgeTask.Status.PENDING, lease_token="", lease_until=None
        )
        released += tasks.exclude(pk__in=called).update(
            status=JudgeTask.Status.PENDING,
            lease_token="",
            lease_until=None,
            attempts=F("attempts") - 1,
        )
    if token is None:
        JudgeLane.objects.filter(run_id=run_id).update(token="", expires=None)
    return released


def lane_slots_release(*, run_id: int, tokens: list[str]) -> None:
    JudgeLane.objects.filter(run_id=run_id, token__in=tokens).update(token="", expires=None)
