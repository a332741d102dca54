import json

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Benchmark
from judging.management.commands._watch import (
    EXIT_INTERRUPTED,
    ensemble_text,
    execute_and_wait,
    resume_command,
    summary_text,
)
from judging.models import JudgeRun
from judging.selectors.ensemble import ensemble_summary
from judging.selectors.output_mode import run_output_notice
from judging.selectors.runs import (
    failed_tasks,
    run_progress,
    run_state,
    runs_with_counts,
    state_label,
)
from judging.services.run_control import (
    judge_run_cancel,
    judge_run_resume,
    judge_run_retry_failed,
)
from judging.services.runs import RunNotStartable
from judging.tasks import dispatch_and_watch


def _run_arguments(parser, *, working: bool) -> None:
    parser.add_argument("run_id", type=int, metavar="ID")
    if working:
        parser.add_argument(
            "--concurrency", type=int, default=None, help="lanes from now on (default: as before)"
        )
        parser.add_argument("--processes", type=int, default=1)
        parser.add_argument(
            "--via-workers", action="store_true", help="let the Celery workers do the calls"
        )
        parser.add_argument(
            "--take-over",
            action="store_true",
            help="resume a run still marked running whose process is gone",
        )
    parser.add_argument("--json", action="store_true", help="print JSON")


class Command(BaseCommand):
    help = "List judge runs, show one, resume, cancel or retry its failed tasks."

    def add_arguments(self, parser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        listing = actions.add_parser("list", help="the latest runs with their counts")
        listing.add_argument("--benchmark", default="", help="only this benchmark's (slug)")
        listing.add_argument("--json", action="store_true", help="print JSON")
        _run_arguments(actions.add_parser("show", help="one run"), working=False)
        _run_arguments(
            actions.add_parser("resume", help="go on with an interrupted or paused run"),
            working=True,
        )
        _run_arguments(actions.add_parser("cancel", help="stop a run for good"), working=False)
        _run_arguments(
            actions.add_parser("retry-failed", help="try the failed tasks again"), working=True
        )

    def handle(self, *args, **opts) -> None:
        action = opts["action"]
        if action == "list":
            return self._list(opts)
        run = JudgeRun.objects.select_related("benchmark", "judge_version__config").filter(
            pk=opts["run_id"]
        )
        run = run.first()
        if run is None:
            raise CommandError(f"no judge run with id {opts['run_id']}")
        try:
            if action == "show":
                self._show(run, opts)
            elif action == "cancel":
                judge_run_cancel(run=run)
                self._show(run, opts)
            elif action == "resume":
                judge_run_resume(
                    run=run,
                    dispatch=dispatch_and_watch if opts["via_workers"] else None,
                    lanes=opts["concurrency"],
                    take_over=opts["take_over"],
                )
                self._work(run, opts)
            else:
                self._retry_failed(run, opts)
        except RunNotStartable as exc:
            raise CommandError(str(exc)) from exc

    def _list(self, opts) -> None:
        benchmark = None
        if opts["benchmark"]:
            benchmark = Benchmark.objects.filter(slug=opts["benchmark"]).first()
            if benchmark is None:
                raise CommandError(f"no benchmark with slug {opts['benchmark']!r}")
        runs = runs_with_counts(benchmark=benchmark)
        rows = [
            {
                "id": run.pk,
                "kind": run.kind,
                "benchmark": run.benchmark.slug,
                "judge": f"{run.config.name} v{run.judge_version.number}",
                "state": run.state,
                "total": run.total,
                "done": run.done,
                "failed": run.failed,
                "left": run.left,
                "created": run.created.isoformat(timespec="seconds"),
            }
            for run in runs
        ]
        if opts["json"]:
            self.stdout.write(json.dumps(rows, ensure_ascii=False))
            return
        if not rows:
            self.stdout.write("no judge runs")
            return
        header = f"{'id':>5}  {'state':<22}  {'done':>6}  {'failed':>6}  {'left':>6}  {'total':>6}"
        self.stdout.write(header + "  benchmark  judge")
        for row in rows:
            self.stdout.write(
                f"{row['id']:>5}  {row['state']:<22}  {row['done']:>6}  {row['failed']:>6}  "
                f"{row['left']:>6}  {row['total']:>6}  {row['benchmark']}  {row['judge']}"
            )

    def _show(self, run: JudgeRun, opts) -> None:
        run.refresh_from_db()
        p = run_progress(run=run)
        state = run_state(run, p.failed)
        info = {
            "id": run.pk,
            "kind": run.kind,
            "benchmark": run.benchmark.slug,
            "judge": f"{run.config.name} v{run.judge_version.number}",
            "state": state,
            "total": p.total,
            "done": p.done,
            "failed": p.failed,
            "left": p.pending + p.running,
            "cancelled": p.cancelled,
            "prompt_tokens": p.prompt_tokens,
            "completion_tokens": p.completion_tokens,
            "created": run.created.isoformat(timespec="seconds"),
            "finished": run.finished.isoformat(timespec="seconds") if run.finished else None,
            "next": _next_steps(run, p.failed),
        }
        ensemble = ensemble_summary(run=run)
        if ensemble is not None:
            info["ensemble"] = ensemble
        if opts["json"]:
            self.stdout.write(json.dumps(info, ensure_ascii=False))
            return
        self.stdout.write(
            f"run {run.pk} ({run.kind}) of {info['benchmark']} by {info['judge']}: "
            f"{state_label(state)}\n"
            f"  {p.done} done, {p.failed} failed, {info['left']} left, {p.cancelled} cancelled "
            f"of {p.total}; {p.prompt_tokens} prompt + {p.completion_tokens} completion tokens"
        )
        if ensemble is not None:
            self.stdout.write(f"  {ensemble_text(ensemble)}")
        for task in failed_tasks(run=run, limit=10):
            case = task.response.case.external_id if task.response else task.case_id
            self.stdout.write(f"  failed: case {case}: {task.last_error}")
        for step in info["next"]:
            self.stdout.write(f"  next: {step}")

    def _work(self, run: JudgeRun, opts) -> None:
        """Work on the run here (or watch the workers do it) until it ends or is
        interrupted again; print the summary."""
        notice = run_output_notice(run=run)
        if notice is not None:
            self.stderr.write(f"note: {notice.text()}")
        summary = execute_and_wait(
            run, via_workers=opts["via_workers"], quiet=opts["json"], processes=opts["processes"]
        )
        if opts["json"]:
            self.stdout.write(json.dumps(summary))
        else:
            unit = "judged" if run.kind == JudgeRun.Kind.JUDGE else "replies written"
            self.stdout.write(summary_text(summary, unit=unit))
        if summary["status"] == JudgeRun.Status.INTERRUPTED:
            raise SystemExit(EXIT_INTERRUPTED)

    def _retry_failed(self, run: JudgeRun, opts) -> None:
        before = run.status
        retried = judge_run_retry_failed(
            run=run, dispatch=dispatch_and_watch if opts["via_workers"] else None
        )
        if not retried:
            self.stdout.write(f"run {run.pk} has no failed tasks")
            return
        self.stdout.write(f"run {run.pk}: {retried} failed tasks will be tried again")
        if before in (JudgeRun.Status.FINISHED, JudgeRun.Status.INTERRUPTED):
            self._work(run, opts)


def _next_steps(run: JudgeRun, failed: int) -> list[str]:
    S = JudgeRun.Status
    steps = []
    if run.status in (S.INTERRUPTED, S.PAUSED):
        steps.append(resume_command(run))
    if failed and run.status != S.CANCELLED:
        steps.append(f"python manage.py runs retry-failed {run.pk}")
    if run.status == S.RUNNING:
        steps.append(f"python manage.py runs resume {run.pk} --take-over  (if its process is gone)")
    return steps
