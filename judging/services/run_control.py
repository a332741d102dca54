"""Steering a judge run once it exists: pause, interrupt, resume, cancel, retry its failed
tasks, and the number of lanes it may use."""

from collections.abc import Callable

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from judging import audit_actions
from judging.models import JudgeLane, JudgeRun, JudgeTask
from judging.services.claims import calls_abandoned, leases_release
from judging.services.output_probe import output_mode_decide, output_settings
from judging.services.runs import RunNotStartable, run_audit, workers_reachable

S = JudgeRun.Status
# States a run may be resumed from: nobody works on it, and it has not ended.
RESUMABLE = (S.PAUSED, S.INTERRUPTED)


class RunNotSteerable(RunNotStartable):
    """The run is in a state the action does not apply to."""


def judge_run_pause(*, run: JudgeRun, user=None) -> None:
    if JudgeRun.objects.filter(pk=run.pk, status=S.RUNNING).update(status=S.PAUSED):
        run_audit(run, audit_actions.RUN_PAUSED, user)


def judge_run_interrupt(*, run_id: int, release: bool) -> bool:
    """Mark a running run interrupted (its command was stopped); with `release`, give back
    every lease and lane slot at once (nobody is left to finish a call). True when the
    run was running."""
    with transaction.atomic():
        changed = JudgeRun.objects.filter(pk=run_id, status=S.RUNNING).update(status=S.INTERRUPTED)
        if release:
            leases_release(run_id=run_id)
    return bool(changed)


def judge_run_resume(
    *,
    run: JudgeRun,
    dispatch: Callable[[JudgeRun], None] | None = None,
    lanes: int | None = None,
    take_over: bool = False,
    user=None,
) -> None:
    """Set a paused or interrupted run running again, handed to `dispatch` (the workers)
    or, without one, to the caller, which works on it in its own process. An interrupted
    run's leases are given back first: the process that held them is gone, so no lane
    waits for them to run out. So is a running run's when nobody holds a lane slot any
    more, or when the caller says (`take_over`) that the process working on it is gone.

    Raises WorkersUnreachable when the broker does not answer, RunNotSteerable when the
    run is neither paused nor interrupted; either way the run is left as it was."""
    workers_reachable(dispatch)
    output = _output_for(run)
    with transaction.atomic():
        current = JudgeRun.objects.select_for_update().get(pk=run.pk)
        orphaned = current.status == S.RUNNING and (take_over or not _slots_held(current))
        if current.status not in RESUMABLE and not orphaned:
            raise RunNotSteerable(
                _("Only a paused or interrupted run can be resumed; this one is %(status)s.")
                % {"status": current.get_status_display()}
            )
        if current.status == S.INTERRUPTED or orphaned:
            leases_release(run_id=run.pk)
        if lanes is not None:
            lanes_resize(run=current, lanes=lanes)
        _output_record(current, output)
        JudgeRun.objects.filter(pk=run.pk).update(status=S.RUNNING, finished=None)
        run_audit(run, audit_actions.RUN_RESUMED, user, was=current.status)
        if dispatch is not None:
            transaction.on_commit(lambda: dispatch(run))
    run.refresh_from_db()


def _slots_held(run: JudgeRun) -> bool:
    return JudgeLane.objects.filter(run=run, expires__gte=timezone.now()).exclude(token="").exists()


def judge_run_cancel(*, run: JudgeRun, user=None) -> None:
    """Stop the run: tasks not yet done are cancelled; finished verdicts are kept. A call
    in flight is recorded as an abandoned attempt, its prompt tokens estimated: the
    endpoint got it, so it counts in the run's calls and cost."""
    with transaction.atomic():
        if (
            JudgeRun.objects.filter(pk=run.pk)
            .exclude(status__in=[S.FINISHED, S.CANCELLED])
            .update(status=S.CANCELLED, finished=timezone.now())
        ):
            run_audit(run, audit_actions.RUN_CANCELLED, user)
        calls_abandoned(
            JudgeTask.objects.filter(
                run=run,
                status=JudgeTask.Status.RUNNING,
                call_number__gt=0,
                call_number=F("attempts"),
            ),
            budget_kept=True,
        )
        JudgeTask.objects.filter(
            run=run, status__in=[JudgeTask.Status.PENDING, JudgeTask.Status.RUNNING]
        ).update(status=JudgeTask.Status.CANCELLED, last_error="cancelled", lease_token="")


def judge_run_retry_failed(
    *, run: JudgeRun, dispatch: Callable[[JudgeRun], None] | None = None, user=None
) -> int:
    """Give the run's failed tasks a fresh retry budget and set the run going again (a
    finished or interrupted run runs again, handed to `dispatch` or to the caller; a
    running or paused one just has more to do). Their failed attempts stay in their log.
    Returns how many tasks will be tried again.

    Raises RunNotSteerable for a cancelled run, WorkersUnreachable when the broker does
    not answer; either way nothing changes."""
    workers_reachable(dispatch)
    output = _output_for(run) if run.status != S.CANCELLED else None
    with transaction.atomic():
        current = JudgeRun.objects.select_for_update().get(pk=run.pk)
        if current.status == S.CANCELLED:
            raise RunNotSteerable(_("A cancelled run cannot be retried."))
        _output_record(current, output)
        retried = JudgeTask.objects.filter(run=run, status=JudgeTask.Status.FAILED).update(
            status=JudgeTask.Status.PENDING,
            attempts_spent_before=F("attempts"),
            not_before=None,
            finished=None,
            lease_token="",
            lease_until=None,
        )
        if retried:
            run_audit(run, audit_actions.RUN_RESUMED, user, retried_failed=retried)
        if retried and current.status in (S.FINISHED, S.INTERRUPTED):
            if current.status == S.INTERRUPTED:
                leases_release(run_id=run.pk)
            JudgeRun.objects.filter(pk=run.pk).update(status=S.RUNNING, finished=None)
            if dispatch is not None:
                transaction.on_commit(lambda: dispatch(run))
    run.refresh_from_db()
    return retried


def lanes_resize(*, run: JudgeRun, lanes: int) -> None:
    """Let the run use `lanes` lanes from now on (slots added, or free ones above the number
    removed), recorded in its settings as how the calls are made."""
    lanes = max(1, lanes)
    have = set(JudgeLane.objects.filter(run=run).values_list("number", flat=True))
    JudgeLane.objects.bulk_create(
        JudgeLane(run=run, number=n) for n in range(1, lanes + 1) if n not in have
    )
    JudgeLane.objects.filter(run=run, number__gt=lanes, token="").delete()
    snapshot = {**run.settings_snapshot, "max_concurrency": lanes}
    JudgeRun.objects.filter(pk=run.pk).update(settings_snapshot=snapshot)
    run.settings_snapshot = snapshot


def _output_for(run: JudgeRun) -> dict | None:
    """How a judge run's calls will ask for replies from now on; the endpoint is probed
    first when its version has no stored answer (a run started before one was stored, or
    whose probe got no answer). Made before any lock is taken: it may call the endpoint."""
    if run.kind != JudgeRun.Kind.JUDGE:
        return None
    return output_settings(output_mode_decide(version=run.judge_version))


def _output_record(run: JudgeRun, output: dict | None) -> None:
    if output is None:
        return
    snapshot = {k: v for k, v in run.settings_snapshot.items() if k != "output_probe_unchecked"}
    snapshot.update(output)
    if snapshot != run.settings_snapshot:
        JudgeRun.objects.filter(pk=run.pk).update(settings_snapshot=snapshot)
        run.settings_snapshot = snapshot
