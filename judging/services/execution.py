"""One attempt at one task: build the request, call the endpoint, check the reply, and
record the outcome. Every write is conditional on the lane still holding the task's lease,
so a task taken over after its lane died is written once, by its new lane.
"""

import os
import random
import secrets
import socket
import time
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.models import Criterion, Response
from judging.llm_client import CallFailed, CallResult, call_chat, client_for
from judging.models import JudgeAttempt, JudgeRun, JudgeTask, Verdict
from judging.prompting import (
    PromptCriterion,
    build_generation_request,
    build_judge_request,
    request_hash,
)
from judging.replies import ParsedReply, ReplyInvalid, parse_reply

BACKOFF_CAP_SECONDS = 60.0
HOST = socket.gethostname()


def worker_name() -> str:
    """This process, as attempts record it (a lane's process may be a fork or a spawn)."""
    return f"{HOST}:{os.getpid()}"


@dataclass
class Lane:
    run_id: int
    token: str
    min_interval: float  # seconds between this lane's calls (its share of the rpm limit)
    last_call: float = 0.0
    # Rubric versions never change, so a lane loads each one's criteria once.
    criteria: dict[int, list] = field(default_factory=dict)


def lane_for(run: JudgeRun) -> Lane:
    snapshot = run.settings_snapshot
    rpm = snapshot.get("requests_per_minute") or 0
    lanes = max(1, snapshot.get("max_concurrency") or 1)
    return Lane(
        run_id=run.pk,
        token=secrets.token_hex(8),
        min_interval=(60.0 * lanes / rpm) if rpm else 0.0,
    )


def _prompt_criteria(task: JudgeTask, lane: Lane) -> list[Criterion]:
    version = task.rubric_version_id
    if version not in lane.criteria:
        lane.criteria[version] = list(
            Criterion.objects.filter(rubric_version_id=version)
            .select_related("ability")
            .order_by("position")
        )
    return lane.criteria[version]


def task_execute(*, run: JudgeRun, task: JudgeTask, lane: Lane) -> None:
    """One attempt at one task, as `task_claim` returned it (with its response and case);
    records the outcome."""
    if run.kind == JudgeRun.Kind.GENERATION:
        generation_execute(run=run, task=task, lane=lane)
        return
    snapshot = run.settings_snapshot
    criteria = _prompt_criteria(task, lane)
    request = build_judge_request(
        system_text=run.prompt.system_text,
        user_text=run.prompt.user_text,
        dialogue=task.response.case.dialogue,
        response=task.response.text,
        criteria=[
            PromptCriterion(c.position, c.ability.label, c.weight, c.text, c.is_catastrophic)
            for c in criteria
        ],
        structured=snapshot.get("structured_output", True),
    )
    sampling = {
        "base_url": snapshot.get("base_url", ""),
        "temperature": snapshot.get("temperature", 0.0),
        "seed": snapshot.get("seed"),
        "max_output_tokens": snapshot.get("max_output_tokens"),
    }
    digest = request_hash(model=snapshot["model"], request=request, settings=sampling)
    if not run.fresh_calls and _reuse_cached(task=task, digest=digest, criteria=criteria):
        return
    result = _call(run=run, task=task, lane=lane, request=request)
    if result is None:
        return
    try:
        reply = parse_reply(result.content, expected=len(criteria))
    except ReplyInvalid as exc:
        failure = CallFailed(
            JudgeAttempt.Outcome.INVALID,
            str(exc),
            retryable=True,
            latency_ms=result.latency_ms,
            raw=result.content or "",
        )
        _attempt_failed(run=run, task=task, failure=failure, result=result)
        return
    _attempt_succeeded(task=task, criteria=criteria, reply=reply, result=result, digest=digest)


def _call(*, run: JudgeRun, task: JudgeTask, lane: Lane, request) -> CallResult | None:
    """The paced call with the run's settings; a failed call is recorded and gives None."""
    snapshot = run.settings_snapshot
    _pace(lane)
    try:
        client = client_for(
            base_url=snapshot.get("base_url", ""),
            api_key_env=snapshot.get("api_key_env", ""),
            timeout=float(snapshot.get("timeout_seconds", 120)),
        )
        return call_chat(
            client,
            model=snapshot["model"],
            request=request,
            temperature=float(snapshot.get("temperature", 0.0)),
            seed=snapshot.get("seed"),
            max_tokens=int(snapshot.get("max_output_tokens", 4096)),
        )
    except CallFailed as exc:
        _attempt_failed(run=run, task=task, failure=exc)
        return None


def generation_execute(*, run: JudgeRun, task: JudgeTask, lane: Lane) -> None:
    """Ask the candidate model for its reply to the case; the reply becomes a Response."""
    request = build_generation_request(
        system_text=run.prompt.system_text,
        user_text=run.prompt.user_text,
        dialogue=task.case.dialogue,
    )
    result = _call(run=run, task=task, lane=lane, request=request)
    if result is None:
        return
    text = (result.content or "").strip()
    if not text:
        failure = CallFailed(
            JudgeAttempt.Outcome.INVALID,
            "empty reply",
            retryable=True,
            latency_ms=result.latency_ms,
        )
        _attempt_failed(run=run, task=task, failure=failure, result=result)
        return
    with transaction.atomic():
        response, _ = Response.objects.get_or_create(
            system_id=task.system_id,
            case_id=task.case_id,
            defaults={"text": text, "source": Response.Source.GENERATION},
        )
        ended = _still_ours(task).update(
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
        _record_ok_attempt(task, result)


def _record_ok_attempt(task: JudgeTask, result: CallResult) -> None:
    JudgeAttempt.objects.create(
        task=task,
        number=task.attempts,
        outcome=JudgeAttempt.Outcome.OK,
        raw_output=result.content or "",
        latency_ms=result.latency_ms,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        worker=worker_name(),
    )


def _pace(lane: Lane) -> None:
    if lane.min_interval:
        wait = lane.last_call + lane.min_interval - time.monotonic()
        if wait > 0:
            time.sleep(wait)
    lane.last_call = time.monotonic()


def _still_ours(task: JudgeTask):
    return JudgeTask.objects.filter(
        pk=task.pk, status=JudgeTask.Status.RUNNING, lease_token=task.lease_token
    )


def _attempt_succeeded(
    *,
    task: JudgeTask,
    criteria: list[Criterion],
    reply: ParsedReply,
    result: CallResult,
    digest: str,
) -> None:
    with transaction.atomic():
        ended = _still_ours(task).update(
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
        _record_ok_attempt(task, result)
        Verdict.objects.bulk_create(
            Verdict(task=task, criterion=c, hit=v.hit, reasoning=v.reasoning)
            for c, v in zip(criteria, reply.verdicts, strict=True)
        )


def backoff_seconds(attempt: int, retry_after: float | None, base: float = 1.0) -> float:
    """Exponential backoff with jitter; a server's Retry-After is honoured as a minimum."""
    delay = min(BACKOFF_CAP_SECONDS, base * 2 ** (attempt - 1))
    delay = random.uniform(delay / 2, delay)
    return max(delay, retry_after) if retry_after is not None else delay


def _attempt_failed(
    *, run: JudgeRun, task: JudgeTask, failure: CallFailed, result: CallResult | None = None
) -> None:
    max_attempts = int(run.settings_snapshot.get("max_attempts", 5))
    retry = failure.retryable and task.attempts < max_attempts
    now = timezone.now()
    message = f"attempt {task.attempts}: {failure.message}"
    with transaction.atomic():
        if retry:
            changes = {
                "status": JudgeTask.Status.PENDING,
                "not_before": now
                + timedelta(
                    seconds=backoff_seconds(
                        task.attempts,
                        failure.retry_after,
                        float(run.settings_snapshot.get("backoff_seconds", 1.0)),
                    )
                ),
            }
        else:
            if failure.retryable:
                message += f" (gave up after {task.attempts} attempts)"
            changes = {"status": JudgeTask.Status.FAILED, "finished": now}
        ended = _still_ours(task).update(
            lease_token="",
            last_error=message,
            prompt_tokens=F("prompt_tokens") + (result.prompt_tokens if result else 0),
            completion_tokens=F("completion_tokens") + (result.completion_tokens if result else 0),
            **changes,
        )
        if not ended:
            return
        JudgeAttempt.objects.create(
            task=task,
            number=task.attempts,
            outcome=failure.outcome,
            error=failure.message,
            http_status=failure.http_status,
            raw_output=failure.raw[:20000],
            latency_ms=failure.latency_ms,
            prompt_tokens=result.prompt_tokens if result else 0,
            completion_tokens=result.completion_tokens if result else 0,
            worker=worker_name(),
        )


def _reuse_cached(*, task: JudgeTask, digest: str, criteria: list[Criterion]) -> bool:
    """An identical request answered before (same prompt, model and settings) is reused
    instead of paid for again."""
    source = (
        JudgeTask.objects.filter(request_hash=digest, status=JudgeTask.Status.DONE)
        .exclude(pk=task.pk)
        .order_by("pk")
        .first()
    )
    if source is None:
        return False
    earlier = list(source.verdicts.order_by("criterion__position"))
    if len(earlier) != len(criteria):
        return False
    with transaction.atomic():
        ended = _still_ours(task).update(
            status=JudgeTask.Status.DONE,
            finished=timezone.now(),
            lease_token="",
            request_hash=digest,
            cached_from=source,
            reasoning=source.reasoning,
        )
        if not ended:
            return True
        JudgeAttempt.objects.create(
            task=task,
            number=task.attempts,
            outcome=JudgeAttempt.Outcome.CACHED,
            worker=worker_name(),
        )
        Verdict.objects.bulk_create(
            Verdict(task=task, criterion=c, hit=v.hit, reasoning=v.reasoning)
            for c, v in zip(criteria, earlier, strict=True)
        )
    return True
