from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.db.models import Count, Q, Sum
from django.utils import timezone

from judging.models import JudgeRun, JudgeTask

THROUGHPUT_WINDOW = timedelta(seconds=60)


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
    per_minute: float  # tasks finished in the last minute
    eta_seconds: float | None
    cost: Decimal

    @property
    def finished(self) -> int:
        return self.done + self.failed

    @property
    def percent(self) -> float:
        return 100.0 * (self.finished + self.cancelled) / self.total if self.total else 100.0


def run_progress(*, run: JudgeRun) -> RunProgress:
    """Counts, tokens, throughput, ETA and cost of a run, in two queries."""
    S = JudgeTask.Status
    since = timezone.now() - THROUGHPUT_WINDOW
    row = JudgeTask.objects.filter(run=run).aggregate(
        total=Count("pk"),
        done=Count("pk", filter=Q(status=S.DONE)),
        failed=Count("pk", filter=Q(status=S.FAILED)),
        running=Count("pk", filter=Q(status=S.RUNNING)),
        pending=Count("pk", filter=Q(status=S.PENDING)),
        cancelled=Count("pk", filter=Q(status=S.CANCELLED)),
        recent=Count("pk", filter=Q(finished__gte=since)),
        prompt_tokens=Sum("prompt_tokens"),
        completion_tokens=Sum("completion_tokens"),
    )
    remaining = row["pending"] + row["running"]
    per_minute = float(row["recent"])
    eta = remaining * 60.0 / per_minute if per_minute and remaining else None
    snapshot = run.settings_snapshot
    prompt_tokens, completion_tokens = row["prompt_tokens"] or 0, row["completion_tokens"] or 0
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
    )


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
