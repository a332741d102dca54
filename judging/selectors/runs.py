import math
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.db.models import Count, F, Min, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.models import ReviewRound
from judging.models import JudgeAttempt, JudgeRun, JudgeTask
from judging.models.runs import requested_tasks

# The rate is that of the run's latest finishes: this many of them, over the time since the
# first of them (so a run that stalls sees its rate fall instead of staying stale).
RATE_SAMPLE = 20
TROUBLE_WINDOW = timedelta(minutes=5)
# Failures that say the endpoint itself is down or overwhelmed, not that one reply was bad.
ENDPOINT_OUTCOMES = (
    JudgeAttempt.Outcome.CONNECTION,
    JudgeAttempt.Outcome.TIMEOUT,
    JudgeAttempt.Outcome.HTTP_ERROR,
)


@dataclass(frozen=True)
class RunProgress:
    total: int
    done: int
    failed: int
    running: int
    pending: int
    cancelled: int
    prompt_tokens: int
    completion_tokens: int
    per_minute: float  # the recent rate (see RATE_SAMPLE)
    eta_seconds: float | None
    cost: Decimal
    # Of the total, drift anchors the run was not asked for (judged for the drift test).
    anchors_added: int = 0

    @property
    def finished(self) -> int:
        return self.done + self.failed

    @property
    def percent(self) -> float:
        return 100.0 * (self.finished + self.cancelled) / self.total if self.total else 100.0


def run_progress(*, run: JudgeRun) -> RunProgress:
    """Counts, tokens, throughput, ETA and cost of a run, in three queries."""
    S = JudgeTask.Status
    row = JudgeTask.objects.filter(run=run).aggregate(
        total=Count("pk"),
        done=Count("pk", filter=Q(status=S.DONE)),
        failed=Count("pk", filter=Q(status=S.FAILED)),
        running=Count("pk", filter=Q(status=S.RUNNING)),
        pending=Count("pk", filter=Q(status=S.PENDING)),
        cancelled=Count("pk", filter=Q(status=S.CANCELLED)),
        anchors_added=Count("pk", filter=~requested_tasks()),
        prompt_tokens=Sum("prompt_tokens"),
        completion_tokens=Sum("completion_tokens"),
    )
    remaining = row["pending"] + row["running"]
    per_minute = _recent_rate(run) if row["done"] + row["failed"] else 0.0
    eta = remaining * 60.0 / per_minute if per_minute and remaining else None
    snapshot = run.settings_snapshot
    # The structured-output probe made as the run started is part of its cost.
    probe = snapshot.get("probe_usage") or {}
    prompt_tokens = (row["prompt_tokens"] or 0) + probe.get("prompt_tokens", 0)
    completion_tokens = (row["completion_tokens"] or 0) + probe.get("completion_tokens", 0)
    cost = (
        Decimal(prompt_tokens) * Decimal(snapshot.get("price_prompt_per_1k", "0"))
        + Decimal(completion_tokens) * Decimal(snapshot.get("price_completion_per_1k", "0"))
    ) / 1000
    return RunProgress(
        total=row["total"],
        done=row["done"],
        failed=row["failed"],
        running=row["running"],
        pending=row["pending"],
        cancelled=row["cancelled"],
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        per_minute=per_minute,
        eta_seconds=eta if run.status == JudgeRun.Status.RUNNING else None,
        cost=cost.quantize(Decimal("0.0001")),
        anchors_added=row["anchors_added"],
    )


def _recent_rate(run: JudgeRun) -> float:
    """Tasks per minute over the run's latest finishes, up to now."""
    latest = list(
        JudgeTask.objects.filter(
            run=run,
            finished__isnull=False,
            status__in=[JudgeTask.Status.DONE, JudgeTask.Status.FAILED],
        )
        .order_by("-finished")
        .values_list("finished", flat=True)[:RATE_SAMPLE]
    )
    if not latest:
        return 0.0
    end = timezone.now() if run.status == JudgeRun.Status.RUNNING else latest[0]
    span = (end - latest[-1]).total_seconds()
    return 60.0 * len(latest) / max(span, 1.0)


def failed_tasks(*, run: JudgeRun, limit: int = 50):
    return (
        JudgeTask.objects.filter(run=run, status=JudgeTask.Status.FAILED)
        .select_related("response__case", "response__system")
        .order_by("pk")[:limit]
    )


def recent_errors(*, run: JudgeRun, limit: int = 10):
    """Why tasks are backing off right now (pending tasks with an error)."""
    return (
        JudgeTask.objects.filter(run=run, status=JudgeTask.Status.PENDING)
        .exclude(last_error="")
        .values_list("last_error", flat=True)
        .order_by("-pk")[:limit]
    )


@dataclass(frozen=True)
class EndpointTrouble:
    failed: int  # attempts that failed at the endpoint within the window
    answered: int  # attempts the endpoint answered within the window (any reply)
    reasons: list[tuple[str, int]]  # (reason, attempts), most frequent first
    window_minutes: int
    retry_in_seconds: int | None  # until the next retry is due, when one is waiting

    @property
    def not_answering(self) -> bool:
        return self.answered == 0


def endpoint_trouble(*, run: JudgeRun) -> EndpointTrouble | None:
    """Why a running run's calls are failing at the endpoint (connection errors, timeouts,
    server errors in the last few minutes, grouped), and when the next retry is due; None
    when nothing is wrong there. Two queries."""
    if run.status != JudgeRun.Status.RUNNING:
        return None
    now = timezone.now()
    rows = (
        JudgeAttempt.objects.filter(task__run=run, created__gte=now - TROUBLE_WINDOW)
        .values("outcome", "http_status")
        .annotate(n=Count("pk"))
    )
    failed, answered, reasons = 0, 0, []
    labels = dict(JudgeAttempt.Outcome.choices)
    for row in rows:
        outcome, status, n = row["outcome"], row["http_status"], row["n"]
        if outcome == JudgeAttempt.Outcome.HTTP_ERROR and (status or 0) < 500:
            outcome = None  # a 4xx is the endpoint answering "no", not the endpoint failing
        if outcome in ENDPOINT_OUTCOMES:
            failed += n
            label = str(labels[outcome]) if outcome != "http_error" else f"HTTP {status}"
            reasons.append((label, n))
        elif row["outcome"] != JudgeAttempt.Outcome.CACHED:
            answered += n
    if not failed:
        return None
    retry_at = JudgeTask.objects.filter(
        run=run, status=JudgeTask.Status.PENDING, not_before__gt=now
    ).aggregate(at=Min("not_before"))["at"]
    return EndpointTrouble(
        failed=failed,
        answered=answered,
        reasons=sorted(reasons, key=lambda r: (-r[1], r[0])),
        window_minutes=int(TROUBLE_WINDOW.total_seconds() // 60),
        retry_in_seconds=math.ceil((retry_at - now).total_seconds()) if retry_at else None,
    )


def latest_finished_run(*, benchmark, kind: str = JudgeRun.Kind.JUDGE) -> JudgeRun | None:
    """The benchmark's most recently finished judge run, LLM-judged or imported."""
    return (
        JudgeRun.objects.filter(benchmark=benchmark, kind=kind, status=JudgeRun.Status.FINISHED)
        .newest_first()
        .select_related("judge_version__config")
        .first()
    )


FINISHED_WITH_FAILURES = "finished_with_failures"
WAITING_FOR_ENDPOINT = "waiting_endpoint"


def run_state(run: JudgeRun, failed: int) -> str:
    """What a run's badge says: its status, except that a run that finished with failed
    tasks is "finished_with_failures", never mistaken for a clean finish, and a running
    run whose endpoint is down is "waiting_endpoint"."""
    if run.status == JudgeRun.Status.FINISHED and failed:
        return FINISHED_WITH_FAILURES
    if run.status == JudgeRun.Status.RUNNING and run.endpoint_down_since is not None:
        return WAITING_FOR_ENDPOINT
    return run.status


def state_label(state: str) -> str:
    if state == FINISHED_WITH_FAILURES:
        return str(_("finished with failures"))
    if state == WAITING_FOR_ENDPOINT:
        return str(_("waiting for the endpoint"))
    return str(dict(JudgeRun.Status.choices).get(state, state))


def runs_with_counts(*, benchmark=None, kind: str | None = None, limit: int = 100):
    """The latest runs (of one benchmark, or all; of one kind, or all) with their task
    counts, in one query: `total`, `done`, `failed` and `left` (pending or running), and
    `state` (see run_state)."""
    S = JudgeTask.Status
    runs = JudgeRun.objects.select_related("benchmark", "judge_version__config").prefetch_related(
        "systems"
    )
    if benchmark is not None:
        runs = runs.filter(benchmark=benchmark)
    if kind is not None:
        runs = runs.filter(kind=kind)
    runs = list(
        runs.annotate(
            total=Count("tasks"),
            done=Count("tasks", filter=Q(tasks__status=S.DONE)),
            failed=Count("tasks", filter=Q(tasks__status=S.FAILED)),
            left=Count("tasks", filter=Q(tasks__status__in=[S.PENDING, S.RUNNING])),
        )[:limit]
    )
    for run in runs:
        run.state = run_state(run, run.failed)
        run.state_label = state_label(run.state)
    return runs


def interrupted_runs_of(*, benchmark, version) -> list[int]:
    """Ids of the benchmark's interrupted runs of this judge version, newest first."""
    return list(
        JudgeRun.objects.filter(
            benchmark=benchmark, judge_version=version, status=JudgeRun.Status.INTERRUPTED
        ).values_list("pk", flat=True)
    )


def rounds_judged(*, run: JudgeRun) -> list:
    """The benchmark's review rounds whose every item the run judged, newest first. One
    query."""
    return list(
        ReviewRound.objects.filter(benchmark_id=run.benchmark_id)
        .annotate(
            item_count=Count("items", distinct=True),
            judged=Count(
                "items",
                filter=Q(
                    requested_tasks("items__response__judge_tasks__"),
                    items__response__judge_tasks__run=run,
                ),
                distinct=True,
            ),
        )
        .filter(item_count__gt=0, judged=F("item_count"))
        .order_by("-created", "-pk")
    )
