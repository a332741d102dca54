"""One attempt at one task: build the request, call the endpoint, check the reply, and
record the outcome (the writes themselves are in outcomes.py)."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from django.db import transaction

from annotation.models import Criterion
from judging.llm_client import CallFailed, CallResult, call_chat, client_new
from judging.models import JudgeAttempt, JudgeRun, JudgeTask
from judging.prompting import (
    JudgeRequest,
    PromptCriterion,
    build_generation_request,
    build_judge_request,
    examples_of,
    request_hash,
)
from judging.replies import ReplyInvalid, parse_reply
from judging.services.ensemble import ensemble_execute
from judging.services.outage import budget_refund
from judging.services.outcomes import (
    attempt_failed,
    attempt_succeeded,
    cached_reuse,
    call_started,
    generation_succeeded,
)
from judging.services.output_probe import request_tokens, structured_asked
from judging.services.writer import Write, Writer, rows_insert

if TYPE_CHECKING:
    import openai


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
    # The pool's endpoint gate (services/outage.py); None: every failure counts.
    gate: Any = None
    # An ensemble run's members (services/ensemble.py) and their clients, made once.
    members: list | None = None
    clients: dict = field(default_factory=dict)

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
        structured=structured_asked(snapshot),
        examples=examples_of(snapshot.get("examples", [])),
        language=run.prompt.language,
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
    if run.settings_snapshot.get("ensemble"):
        # Never from the cache: the members' samples are meant to differ.
        ensemble_execute(run=run, task=task, lane=lane, criteria=_prompt_criteria(task, lane))
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
        reply = parse_reply(
            result.content, expected=len(criteria), numbers=[c.position for c in criteria]
        )
    except ReplyInvalid as exc:
        failure = CallFailed(
            JudgeAttempt.Outcome.INVALID,
            str(exc),
            retryable=True,
            latency_ms=result.latency_ms,
            raw=result.content or "",
        )
        lane.record(partial(attempt_failed, run=run, task=task, failure=failure, result=result))
        return
    lane.record(
        partial(
            attempt_succeeded,
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
        # Marked as sent (by the writer, with the lane's other outcomes) before it is: a
        # call whose lane stops before its answer still counts (see claims.calls_abandoned).
        lane.record(partial(call_started, task=task, tokens=request_tokens(request.messages)))
        result = call_chat(
            lane.client,
            model=snapshot["model"],
            request=request,
            temperature=float(snapshot.get("temperature", 0.0)),
            seed=snapshot.get("seed"),
            max_tokens=int(snapshot.get("max_output_tokens", 4096)),
        )
    except CallFailed as exc:
        counted, refund = lane.gate.failed(task, exc) if lane.gate else (True, [])
        # A call that timed out may have been processed (and billed): its prompt tokens are
        # estimated from the request, and marked as estimated.
        timed_out = exc.outcome == JudgeAttempt.Outcome.TIMEOUT
        estimate = request_tokens(request.messages) if timed_out else 0
        lane.record(
            partial(
                attempt_failed,
                run=run,
                task=task,
                failure=exc,
                counted=counted,
                estimated_prompt_tokens=estimate,
            )
        )
        if refund:
            lane.record(partial(budget_refund, task_ids=refund))
        return None
    if lane.gate is not None:
        lane.gate.answered()
    return result


def attempt_broke_off(*, run: JudgeRun, task: JudgeTask, lane: Lane, error: Exception) -> None:
    """An attempt that ended in an error of its own (not the endpoint's answer) is a failed
    attempt with that cause, counted against `max_attempts` like any other."""
    detail = str(error)[:300]
    failure = CallFailed(
        JudgeAttempt.Outcome.INVALID,
        f"the attempt broke off ({type(error).__name__}{': ' + detail if detail else ''})",
        retryable=True,
    )
    lane.record(partial(attempt_failed, run=run, task=task, failure=failure))


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
        lane.record(partial(attempt_failed, run=run, task=task, failure=failure, result=result))
        return
    lane.record(partial(generation_succeeded, task=task, text=text, result=result))


def _pace(lane: Lane) -> None:
    if lane.min_interval:
        wait = lane.last_call + lane.min_interval - time.monotonic()
        if wait > 0:
            time.sleep(wait)
    lane.last_call = time.monotonic()
