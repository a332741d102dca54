"""One attempt at one task: build the request, call the endpoint, check the reply, and
record the outcome. Every write is conditional on the lane still holding the task's lease,
so a task taken over after its lane died is written once, by its new lane.
"""

import os
import random
import secrets
import socket
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial

import openai
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.models import Criterion, Response
from judging.llm_client import CallFailed, CallResult, call_chat, client_new
from judging.models import JudgeAttempt, JudgeRun, JudgeTask, Verdict
from judging.prompting import (
    JudgeRequest,
    PromptCriterion,
    build_generation_request,
    build_judge_request,
    request_hash,
)
from judging.replies import ParsedReply, ReplyInvalid, parse_reply
from judging.services.writer import Write, Writer, rows_insert

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
    # The criteria of the rubric versions this lane has judged (see `criteria_load`).
    criteria: dict[int, list] = field(default_factory=dict)
    # Where outcomes go: the pool's writer thread, or (None) written here and now.
    writer: Writer | None = None
    client: openai.OpenAI | None = None  # made at the first call, for this lane alone

    def record(self, write: Write) -> None:
        if self.writer is not None:
            self.writer.put(write)
            return
        with transaction.atomic():
            rows: list = []
            write(rows)
            rows_insert(rows)


def lane_for(run: JudgeRun) -> Lane:
    snapshot = run.settings_snapshot
    rpm = snapshot.get("requests_per_minute") or 0
    lanes = max(1, snapshot.get("max_concurrency") or 1)
    return Lane(
        run_id=run.pk,
        token=secrets.token_hex(8),
        min_interval=(60.0 * lanes / rpm) if rpm else 0.0,
    )


def criteria_load(criteria: dict[int, list], versions: set[int | None]) -> None:
    """Adds to `criteria` the criteria (in order, with their ability) of the rubric versions
    it lacks, in one query. Rubric versions never change, so they are loaded once."""
    missing = {v for v in versions if v is not None and v not in criteria}
    if not missing:
        return
    loaded: dict[int, list] = {version: [] for version in missing}
    for criterion in (
        Criterion.objects.filter(rubric_version_id__in=missing)
        .select_related("ability")
        .order_by("rubric_version_id", "position")
    ):
        loaded[criterion.rubric_version_id].append(criterion)
    criteria.update(loaded)


def _prompt_criteria(task: JudgeTask, lane: Lane) -> list[Criterion]:
    criteria_load(lane.criteria, {task.rubric_version_id})
    return lane.criteria.get(task.rubric_version_id, [])


@dataclass
class Prepared:
    """A judge task ready for its call: the request built, its digest for the cache."""

    task: JudgeTask
    criteria: list[Criterion]
    request: JudgeRequest
    digest: str


def task_prepare(*, run: JudgeRun, task: JudgeTask, criteria: list[Criterion]) -> Prepared:
    snapshot = run.settings_snapshot
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
    return Prepared(task=task, criteria=criteria, request=request, digest=digest)


def task_execute(*, run: JudgeRun, task: JudgeTask, lane: Lane) -> None:
    """One attempt at one task, as `tasks_claim` returned it (with its response and case);
    records the outcome."""
    if run.kind == JudgeRun.Kind.GENERATION:
        generation_execute(run=run, task=task, lane=lane)
        return
    prepared = task_prepare(run=run, task=task, criteria=_prompt_criteria(task, lane))
    if not run.fresh_calls and cached_reuse(prepared=[prepared], record=lane.record):
        return
    prepared_execute(run=run, prepared=prepared, lane=lane)


def prepared_execute(*, run: JudgeRun, prepared: Prepared, lane: Lane) -> None:
    """The call for a prepared judge task, its reply checked; records the outcome."""
    task, criteria = prepared.task, prepared.criteria
    result = _call(run=run, task=task, lane=lane, request=prepared.request)
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
        lane.record(partial(_attempt_failed, run=run, task=task, failure=failure, result=result))
        return
    lane.record(
        partial(
            _attempt_succeeded,
            task=task,
            criteria=criteria,
            reply=reply,
            result=result,
            digest=prepared.digest,
        )
    )


def _call(*, run: JudgeRun, task: JudgeTask, lane: Lane, request) -> CallResult | None:
    """The paced call with the run's settings; a failed call is recorded and gives None."""
    snapshot = run.settings_snapshot
    _pace(lane)
    try:
        if lane.client is None:
            lane.client = client_new(
                base_url=snapshot.get("base_url", ""),
                api_key_env=snapshot.get("api_key_env", ""),
                timeout=float(snapshot.get("timeout_seconds", 120)),
            )
        return call_chat(
            lane.client,
            model=snapshot["model"],
            request=request,
            temperature=float(snapshot.get("temperature", 0.0)),
            seed=snapshot.get("seed"),
            max_tokens=int(snapshot.get("max_output_tokens", 4096)),
        )
    except CallFailed as exc:
        lane.record(partial(_attempt_failed, run=run, task=task, failure=exc))
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
        lane.record(partial(_attempt_failed, run=run, task=task, failure=failure, result=result))
        return
    lane.record(partial(_generation_succeeded, task=task, text=text, result=result))


def _generation_succeeded(rows: list, *, task: JudgeTask, text: str, result: CallResult) -> None:
    # A savepoint of its own: the response it creates is undone if the task is not ours.
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
        rows.append(_ok_attempt(task, result))


def _ok_attempt(task: JudgeTask, result: CallResult) -> JudgeAttempt:
    return JudgeAttempt(
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
    rows: list,
    *,
    task: JudgeTask,
    criteria: list[Criterion],
    reply: ParsedReply,
    result: CallResult,
    digest: str,
) -> None:
    """Run by `Lane.record`, inside its transaction (as are the other writes below)."""
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
    rows.append(_ok_attempt(task, result))
    rows.extend(
        Verdict(task=task, criterion=c, hit=v.hit, reasoning=v.reasoning)
        for c, v in zip(criteria, reply.verdicts, strict=True)
    )


def backoff_seconds(attempt: int, retry_after: float | None, base: float = 1.0) -> float:
    """Exponential backoff with jitter; a server's Retry-After is honoured as a minimum."""
    delay = min(BACKOFF_CAP_SECONDS, base * 2 ** (attempt - 1))
    delay = random.uniform(delay / 2, delay)
    return max(delay, retry_after) if retry_after is not None else delay


def _attempt_failed(
    rows: list,
    *,
    run: JudgeRun,
    task: JudgeTask,
    failure: CallFailed,
    result: CallResult | None = None,
) -> None:
    max_attempts = int(run.settings_snapshot.get("max_attempts", 5))
    retry = failure.retryable and task.attempts < max_attempts
    now = timezone.now()
    message = f"attempt {task.attempts}: {failure.message}"
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
    rows.append(
        JudgeAttempt(
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
    )


def cached_reuse(*, prepared: list[Prepared], record: Callable) -> set[int]:
    """Tasks whose identical request (same prompt, model and settings) was answered before
    reuse that answer instead of paying for it again; returns their ids. Two queries for
    the whole batch."""
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
    ended = _still_ours(task).update(
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
