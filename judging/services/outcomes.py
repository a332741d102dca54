"""The writes that record an attempt's outcome, run by `Lane.record` inside its transaction
(or by the pool's writer, in batches). Each is conditional on the lane still holding the
task's lease, so a task taken over after its lane died is written once, by its new lane."""

from __future__ import annotations

import os
import random
import socket
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Case, F, PositiveIntegerField, Value, When
from django.utils import timezone

from annotation.generation_failures import is_failed_generation
from annotation.models import Criterion, Response
from judging.llm_client import CallFailed, CallResult
from judging.models import JudgeAttempt, JudgeRun, JudgeTask, Verdict
from judging.replies import ParsedReply

if TYPE_CHECKING:
    from judging.services.execution import Prepared

BACKOFF_CAP_SECONDS = 60.0
HOST = socket.gethostname()


def worker_name() -> str:
    """This process, as attempts record it (a lane's process may be a fork or a spawn)."""
    return f"{HOST}:{os.getpid()}"


def task_still_ours(task: JudgeTask):
    return JudgeTask.objects.filter(
        pk=task.pk, status=JudgeTask.Status.RUNNING, lease_token=task.lease_token
    )


@dataclass(frozen=True)
class CallStarted:
    """The mark that attempt `number` of a task has sent its call (about `tokens` prompt
    tokens): a row for the writer, which marks a batch's tasks with one statement per
    attempt number. A mark that comes after its task has moved on (answered, or taken over
    by another lane) changes nothing."""

    task_id: int
    number: int
    tokens: int

    @staticmethod
    def rows_write(marks: list[CallStarted]) -> None:
        by_number: dict[int, list[CallStarted]] = defaultdict(list)
        for mark in marks:
            by_number[mark.number].append(mark)
        now = timezone.now()
        for number, group in by_number.items():
            JudgeTask.objects.filter(
                pk__in=[mark.task_id for mark in group],
                status=JudgeTask.Status.RUNNING,
                attempts=number,
            ).update(
                call_number=number,
                call_started=now,
                call_tokens=Case(
                    *[When(pk=mark.task_id, then=Value(mark.tokens)) for mark in group],
                    default=Value(0),
                    output_field=PositiveIntegerField(),
                ),
            )


def call_started(rows: list, *, task: JudgeTask, tokens: int) -> None:
    """Run by `Lane.record` before the call is sent (see `CallStarted`)."""
    rows.append(CallStarted(task_id=task.pk, number=task.attempts, tokens=tokens))


def ok_attempt(task: JudgeTask, result: CallResult, reply_form: str = "") -> JudgeAttempt:
    return JudgeAttempt(
        reply_form=reply_form,
        task=task,
        number=task.attempts,
        outcome=JudgeAttempt.Outcome.OK,
        raw_output=result.content or "",
        model_reasoning=result.reasoning[:100_000],
        latency_ms=result.latency_ms,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        provider_model=result.model,
        system_fingerprint=result.system_fingerprint,
        worker=worker_name(),
    )


def attempt_succeeded(
    rows: list,
    *,
    task: JudgeTask,
    criteria: list[Criterion],
    reply: ParsedReply,
    result: CallResult,
    digest: str,
) -> None:
    """Run by `Lane.record`, inside its transaction (as are the other writes below)."""
    ended = task_still_ours(task).update(
        status=JudgeTask.Status.DONE,
        finished=timezone.now(),
        lease_token="",
        request_hash=digest,  # written with the result: the cache reads finished tasks
        reasoning=reply.analysis,
        last_error="",
        prompt_tokens=F("prompt_tokens") + result.prompt_tokens,
        completion_tokens=F("completion_tokens") + result.completion_tokens,
    )
    if not ended:
        return  # the lease ran out and another lane took the task over
    rows.append(ok_attempt(task, result, reply.form))
    rows.extend(
        Verdict(task=task, criterion=c, hit=v.hit, reasoning=v.reasoning)
        for c, v in zip(criteria, reply.verdicts, strict=True)
    )


def backoff_seconds(attempt: int, retry_after: float | None, base: float = 1.0) -> float:
    """Exponential backoff with jitter; a server's Retry-After is honoured as a minimum."""
    delay = min(BACKOFF_CAP_SECONDS, base * 2 ** (attempt - 1))
    delay = random.uniform(delay / 2, delay)
    return max(delay, retry_after) if retry_after is not None else delay


def attempt_failed(
    rows: list,
    *,
    run: JudgeRun,
    task: JudgeTask,
    failure: CallFailed,
    result: CallResult | None = None,
    counted: bool = True,
    estimated_prompt_tokens: int = 0,
) -> None:
    """`counted` False: the attempt was lost to an endpoint outage (services/outage.py);
    it is logged, but uses up none of the task's attempts. `estimated_prompt_tokens`: for a
    call the endpoint may have processed without reporting usage (a timeout), the prompt
    tokens estimated from the request; counted, and the attempt marked as estimated."""
    estimated = 0 if result is not None else estimated_prompt_tokens
    prompt_tokens = (result.prompt_tokens if result else 0) + estimated
    max_attempts = int(run.settings_snapshot.get("max_attempts", 5))
    counted = counted or not failure.retryable
    retry = failure.retryable and (not counted or task.attempts_counted < max_attempts)
    now = timezone.now()
    message = f"attempt {task.attempts}: {failure.message}"
    if retry:
        changes = {
            "status": JudgeTask.Status.PENDING,
            "not_before": now
            + timedelta(
                seconds=backoff_seconds(
                    task.attempts_counted,
                    failure.retry_after,
                    float(run.settings_snapshot.get("backoff_seconds", 1.0)),
                )
            ),
        }
        if not counted:
            changes["attempts_spent_before"] = F("attempts_spent_before") + 1
    else:
        if failure.retryable:
            message += f" (gave up after {task.attempts_counted} attempts)"
        changes = {"status": JudgeTask.Status.FAILED, "finished": now}
    ended = task_still_ours(task).update(
        lease_token="",
        last_error=message,
        prompt_tokens=F("prompt_tokens") + prompt_tokens,
        completion_tokens=F("completion_tokens") + (result.completion_tokens if result else 0),
        **changes,
    )
    if not ended:
        return
    rows.append(
        JudgeAttempt(
            task=task,
            number=task.attempts,
            outcome=failure.outcome,
            error=failure.message,
            http_status=failure.http_status,
            raw_output=failure.raw[:20000],
            latency_ms=failure.latency_ms,
            prompt_tokens=prompt_tokens,
            completion_tokens=result.completion_tokens if result else 0,
            tokens_estimated=bool(estimated),
            provider_model=result.model if result else "",
            system_fingerprint=result.system_fingerprint if result else "",
            worker=worker_name(),
        )
    )


def cached_reuse(*, prepared: list[Prepared], record: Callable) -> set[int]:
    """Tasks whose identical request (same prompt, model and settings) was answered before
    reuse that answer instead of paying for it again; returns their ids. Two queries for
    the whole batch. An anchor's task is never reused: the drift test needs today's answer."""
    prepared = [p for p in prepared if not p.task.anchor]
    digests = {p.digest for p in prepared}
    sources: dict[str, JudgeTask] = {}
    for source in JudgeTask.objects.filter(
        request_hash__in=digests, status=JudgeTask.Status.DONE
    ).order_by("-pk"):
        sources[source.request_hash] = source  # the earliest answer, as pk order gives it
    if not sources:
        return set()
    earlier: dict[int, list[Verdict]] = defaultdict(list)
    for verdict in Verdict.objects.filter(task__in=list(sources.values())).order_by(
        "task_id", "criterion__position"
    ):
        earlier[verdict.task_id].append(verdict)
    reused = set()
    for p in prepared:
        source = sources.get(p.digest)
        if source is None or len(earlier[source.pk]) != len(p.criteria):
            continue
        record(
            partial(
                _cached_reused,
                task=p.task,
                digest=p.digest,
                criteria=p.criteria,
                source=source,
                earlier=earlier[source.pk],
            )
        )
        reused.add(p.task.pk)
    return reused


def _cached_reused(
    rows: list,
    *,
    task: JudgeTask,
    digest: str,
    criteria: list[Criterion],
    source: JudgeTask,
    earlier: list[Verdict],
) -> None:
    ended = task_still_ours(task).update(
        status=JudgeTask.Status.DONE,
        finished=timezone.now(),
        lease_token="",
        request_hash=digest,
        cached_from=source,
        reasoning=source.reasoning,
    )
    if not ended:
        return
    rows.append(
        JudgeAttempt(
            task=task,
            number=task.attempts,
            outcome=JudgeAttempt.Outcome.CACHED,
            worker=worker_name(),
        )
    )
    rows.extend(
        Verdict(task=task, criterion=c, hit=v.hit, reasoning=v.reasoning)
        for c, v in zip(criteria, earlier, strict=True)
    )


def generation_succeeded(rows: list, *, task: JudgeTask, text: str, result: CallResult) -> None:
    # A savepoint of its own: the response it creates is undone if the task is not ours.
    with transaction.atomic():
        response, _ = Response.objects.get_or_create(
            system_id=task.system_id,
            case_id=task.case_id,
            defaults={
                "text": text,
                "source": Response.Source.GENERATION,
                "failed_generation": is_failed_generation(text),
            },
        )
        ended = task_still_ours(task).update(
            status=JudgeTask.Status.DONE,
            finished=timezone.now(),
            lease_token="",
            last_error="",
            response=response,
            prompt_tokens=F("prompt_tokens") + result.prompt_tokens,
            completion_tokens=F("completion_tokens") + result.completion_tokens,
        )
        if not ended:
            transaction.set_rollback(True)  # another lane owns the task now
            return
        rows.append(ok_attempt(task, result))
