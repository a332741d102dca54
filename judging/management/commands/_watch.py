"""Working on a run from a command and watching it: the progress bar, Ctrl-C, the summary.

The first Ctrl-C stops claiming tasks, lets the calls in flight finish (a few seconds at
most), records their outcomes, gives the leases back and leaves the run "interrupted"; the
second stops at once, leases given back. Never a traceback: either way the command says
how to resume the run."""

import os
import signal
import sys
import threading
import time

from django.conf import settings
from django.db.models import Count, Q, Sum

from judging.models import JudgeAttempt, JudgeRun, JudgeTask
from judging.selectors.ensemble import ensemble_summary
from judging.selectors.runs import FINISHED_WITH_FAILURES, run_progress, run_state
from judging.services.claims import leases_release, run_finish_if_complete
from judging.services.lanes import run_here
from judging.services.run_control import judge_run_interrupt

BAR_WIDTH = 30
POLL_SECONDS = 0.2
EXIT_INTERRUPTED = 130  # what a shell reports for a command stopped by Ctrl-C
EXIT_TASKS_FAILED = 3  # the run finished, and some of its tasks failed


class Interrupts:
    """Counts SIGINTs while installed (only the main thread can install a handler)."""

    def __init__(self) -> None:
        self.count = 0
        self.stop = threading.Event()
        self._previous = None

    def __enter__(self) -> "Interrupts":
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame) -> None:
        self.count += 1
        self.stop.set()

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def resume_command(run: JudgeRun, *, via_workers: bool = False) -> str:
    return f"python manage.py runs resume {run.pk}" + (" --via-workers" if via_workers else "")


def summary_of(run: JudgeRun, started: float) -> dict:
    run.refresh_from_db(fields=["status"])
    progress = run_progress(run=run)
    cached = JudgeTask.objects.filter(run=run, cached_from__isnull=False).count()
    attempts = (
        JudgeAttempt.objects.filter(task__run=run)
        .exclude(outcome=JudgeAttempt.Outcome.CACHED)
        .aggregate(
            calls=Count("pk"),
            estimated=Sum("prompt_tokens", filter=Q(tokens_estimated=True)),
        )
    )
    probe = run.settings_snapshot.get("probe_usage") or {}
    return {
        "run": run.pk,
        # As `runs show` says it: "finished_with_failures" when tasks failed.
        "status": run_state(run, progress.failed),
        "tasks": progress.total,
        # Every call made: each attempt, whatever its outcome, and the output probe's.
        "calls": attempts["calls"] + probe.get("calls", 0),
        # Of the prompt tokens, those estimated from the request (no usage was reported).
        "estimated_prompt_tokens": (attempts["estimated"] or 0) + probe.get("estimated_tokens", 0),
        "done": progress.done,
        "failed": progress.failed,
        "left": progress.pending + progress.running,
        "seconds": round(time.perf_counter() - started, 2),
        "prompt_tokens": progress.prompt_tokens,
        "completion_tokens": progress.completion_tokens,
        "cached": cached,
        "cost": str(progress.cost),
        **({"ensemble": ensemble} if (ensemble := ensemble_summary(run=run)) else {}),
    }


def ensemble_text(ensemble: dict) -> str:
    disagreement = ensemble["mean_disagreement"]
    return (
        f"ensemble ({ensemble['kind']}, {ensemble['size']} members): "
        f"{ensemble['member_calls']['answered']} member answers, "
        f"{ensemble['member_calls']['failed']} failed member calls; {ensemble['units']} units, "
        f"{ensemble['units_split']} split, {ensemble['units_undefined']} without a majority; "
        "mean disagreement "
        + ("undefined (no unit answered)" if disagreement is None else f"{disagreement:.3f}")
    )


def _bar(run: JudgeRun, started: float, finished_before: int) -> None:
    """The bar, with this command's own rate (tasks ended since it began, over the time
    since) and the time left at that rate."""
    progress = run_progress(run=run)
    filled = int(BAR_WIDTH * progress.percent / 100)
    elapsed = max(1e-6, time.perf_counter() - started)
    rate = (progress.finished - finished_before) / elapsed
    left = progress.pending + progress.running
    eta = f", about {left / rate:.0f} s left" if rate > 0 and left else ""
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] "
        f"{progress.finished}/{progress.total} "
        f"(failed {progress.failed}, {60 * rate:.0f}/min{eta})   "
    )
    sys.stderr.flush()


def _stop_at_once(run: JudgeRun, *, via_workers: bool) -> None:
    """The second Ctrl-C: leases and slots given back (the workers' own lanes stop by
    themselves, the run no longer running), then out, without waiting for any thread."""
    judge_run_interrupt(run_id=run.pk, release=not via_workers)
    sys.stderr.write(
        f"\nStopped at once: run {run.pk} is interrupted, calls in flight abandoned.\n"
        f"Resume it with:\n  {resume_command(run, via_workers=via_workers)}\n"
    )
    sys.stderr.flush()
    sys.stdout.flush()
    os._exit(EXIT_INTERRUPTED)


def execute_and_wait(run: JudgeRun, *, via_workers: bool, quiet: bool, processes: int = 1) -> dict:
    """Run here in threads (the workers already have it when `via_workers`: the start
    service handed it over), show a progress bar, and return the summary once every task
    has ended or the run was interrupted (its "status" says which)."""
    started = time.perf_counter()
    finished_before = run_progress(run=run).finished
    with Interrupts() as interrupts:
        worker = None
        if not via_workers:
            lanes = int(run.settings_snapshot.get("max_concurrency", 1))
            worker = threading.Thread(
                target=run_here,
                kwargs={
                    "run_id": run.pk,
                    "lanes": lanes,
                    "processes": processes,
                    "stop": interrupts.stop,
                },
                daemon=True,
            )
            worker.start()
        announced = False
        while True:
            if interrupts.count >= 2:
                _stop_at_once(run, via_workers=via_workers)
            if interrupts.count and not announced:
                announced = True
                judge_run_interrupt(run_id=run.pk, release=False)
                sys.stderr.write(
                    "\nInterrupted: no new calls; the calls in flight finish and are recorded "
                    "(a few seconds at most). Press Ctrl-C again to stop at once.\n"
                )
            run.refresh_from_db(fields=["status"])
            if not quiet:
                _bar(run, started, finished_before)
            worker_done = worker is None or not worker.is_alive()
            if run.status != JudgeRun.Status.RUNNING and worker_done:
                break
            if worker is not None and worker_done:
                break
            time.sleep(POLL_SECONDS)
        if not quiet:
            sys.stderr.write("\n")
        if announced and not via_workers:
            # Whatever a lane could not give back (a child process stopped mid-call).
            leases_release(run_id=run.pk)
            run_finish_if_complete(run_id=run.pk, also=JudgeRun.Status.INTERRUPTED)
    summary = summary_of(run, started)
    if summary["status"] == JudgeRun.Status.INTERRUPTED:
        summary["resume"] = resume_command(run, via_workers=via_workers)
    return summary


def exit_for(summary: dict) -> None:
    """Leave with a non-zero status when the run was interrupted or tasks failed."""
    if summary["status"] == JudgeRun.Status.INTERRUPTED:
        raise SystemExit(EXIT_INTERRUPTED)
    if summary["status"] == FINISHED_WITH_FAILURES or summary["failed"]:
        raise SystemExit(EXIT_TASKS_FAILED)


def summary_text(summary: dict, *, unit: str = "judged") -> str:
    text = (
        f"run {summary['run']}: {summary['done']} {unit}, {summary['failed']} failed, "
        f"{summary['seconds']} s, {summary['calls']} calls, {summary['prompt_tokens']} prompt"
        + (
            f" ({summary['estimated_prompt_tokens']} estimated)"
            if summary.get("estimated_prompt_tokens")
            else ""
        )
        + f" + {summary['completion_tokens']} completion tokens, {summary['cached']} answers "
        f"reused from earlier runs, cost {summary['cost']} {settings.CURRENCY}"
    )
    if summary.get("resume"):
        text += (
            f"\nrun {summary['run']} is interrupted with {summary['left']} left to do. "
            f"Resume it with:\n  {summary['resume']}"
        )
    elif summary["failed"]:
        text += (
            f"\nrun {summary['run']} finished with failures. Try them again with:\n"
            f"  python manage.py runs retry-failed {summary['run']}"
        )
    return text
