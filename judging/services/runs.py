"""Starting and steering judge runs. The work itself is done by lanes (execution.py)."""

from collections.abc import Callable, Sequence

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import Benchmark, Response, System
from annotation.selectors.rubrics import latest_version_id_subquery
from judging.llm_client import MissingApiKey, api_key
from judging.models import JudgeConfig, JudgeLane, JudgeRun, JudgeTask


class RunNotStartable(Exception):
    pass


def config_snapshot(config: JudgeConfig) -> dict:
    """The settings a run used, for the record. The key's variable name, never the key."""
    return {
        "name": config.name,
        "base_url": config.base_url,
        "model": config.model,
        "api_key_env": config.api_key_env,
        "temperature": config.temperature,
        "seed": config.seed,
        "max_output_tokens": config.max_output_tokens,
        "timeout_seconds": config.timeout_seconds,
        "max_concurrency": config.max_concurrency,
        "requests_per_minute": config.requests_per_minute,
        "max_attempts": config.max_attempts,
        "backoff_seconds": config.backoff_seconds,
        "structured_output": config.structured_output,
        "prompt": str(config.prompt) if config.prompt else None,
        "price_prompt_per_1k": str(config.price_prompt_per_1k),
        "price_completion_per_1k": str(config.price_completion_per_1k),
        "is_simulated": config.is_simulated,
    }


def judge_run_start(
    *,
    benchmark: Benchmark,
    systems: Sequence[System],
    config: JudgeConfig,
    user=None,
    fresh_calls: bool = False,
    dispatch: Callable[[JudgeRun], None] | None = None,
) -> JudgeRun:
    """Create the run and one task per response (judged against the case's current
    rubric version), then hand it to `dispatch` once committed.

    Raises RunNotStartable, writing nothing, when there is nothing to judge or the key's
    variable is not set.
    """
    if config.prompt is None:
        raise RunNotStartable(_("The judge configuration has no prompt template."))
    try:
        api_key(config.api_key_env)
    except MissingApiKey as exc:
        raise RunNotStartable(str(exc)) from exc
    responses = list(
        Response.objects.filter(case__benchmark=benchmark, system__in=systems)
        .annotate(version_id=latest_version_id_subquery("case"))
        .order_by("case__position", "system__name")
        .values_list("pk", "version_id")
    )
    responses = [(pk, version) for pk, version in responses if version is not None]
    if not responses:
        raise RunNotStartable(_("These systems have no responses to cases with a rubric."))
    with transaction.atomic():
        run = JudgeRun.objects.create(
            benchmark=benchmark,
            config=config,
            prompt=config.prompt,
            settings_snapshot=config_snapshot(config),
            fresh_calls=fresh_calls,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        run.systems.set(systems)
        JudgeTask.objects.bulk_create(
            [JudgeTask(run=run, response_id=pk, rubric_version_id=v) for pk, v in responses],
            batch_size=2000,
        )
        JudgeLane.objects.bulk_create(
            JudgeLane(run=run, number=n) for n in range(1, config.max_concurrency + 1)
        )
        if dispatch is not None:
            transaction.on_commit(lambda: dispatch(run))
    return run


def judge_run_pause(*, run: JudgeRun) -> None:
    JudgeRun.objects.filter(pk=run.pk, status=JudgeRun.Status.RUNNING).update(
        status=JudgeRun.Status.PAUSED
    )


def judge_run_resume(*, run: JudgeRun, dispatch: Callable[[JudgeRun], None] | None = None) -> None:
    with transaction.atomic():
        updated = JudgeRun.objects.filter(pk=run.pk, status=JudgeRun.Status.PAUSED).update(
            status=JudgeRun.Status.RUNNING
        )
        if updated and dispatch is not None:
            transaction.on_commit(lambda: dispatch(run))


def judge_run_cancel(*, run: JudgeRun) -> None:
    """Stop the run: tasks not yet done are cancelled; finished verdicts are kept."""
    with transaction.atomic():
        JudgeRun.objects.filter(pk=run.pk).exclude(status=JudgeRun.Status.FINISHED).update(
            status=JudgeRun.Status.CANCELLED, finished=timezone.now()
        )
        JudgeTask.objects.filter(
            run=run, status__in=[JudgeTask.Status.PENDING, JudgeTask.Status.RUNNING]
        ).update(status=JudgeTask.Status.CANCELLED, last_error="cancelled", lease_token="")


def judge_run_revive(*, run: JudgeRun, dispatch: Callable[[JudgeRun, int], None]) -> int:
    """Dispatch lanes again for a running run whose lanes are gone (a worker was killed, or
    the broker lost their messages). Returns how many lanes were dispatched."""
    if run.status != JudgeRun.Status.RUNNING:
        return 0
    open_tasks = JudgeTask.objects.filter(
        run=run, status__in=[JudgeTask.Status.PENDING, JudgeTask.Status.RUNNING]
    ).exists()
    if not open_tasks:
        return 0
    now = timezone.now()
    idle = (
        JudgeLane.objects.filter(run=run)
        .filter(Q(token="") | Q(expires__isnull=True) | Q(expires__lt=now))
        .count()
    )
    if idle:
        dispatch(run, idle)
    return idle
