"""An ensemble judge's attempt at a task: each member that has not answered yet is called
(k samples of one model, or each version of a panel), its reply checked, and the task's
verdict per criterion is the members' majority (judging.ensemble_vote). Every member's
call and verdicts are kept; a member whose call failed is no vote."""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.db.models import F
from django.utils import timezone

from annotation.models import Criterion
from judging import ensemble_vote
from judging.llm_client import CallFailed, CallResult, call_chat, client_new
from judging.models import (
    JudgeAttempt,
    JudgeRun,
    JudgeTask,
    MemberVerdict,
    PromptTemplate,
    Verdict,
)
from judging.prompting import PromptCriterion, build_judge_request
from judging.replies import ParsedReply, ReplyInvalid, parse_reply
from judging.services.claims import lease_seconds
from judging.services.outage import budget_refund
from judging.services.outcomes import backoff_seconds, call_started, task_still_ours, worker_name
from judging.services.output_probe import request_tokens, structured_asked


@dataclass(frozen=True)
class Member:
    """How one member is called: for self-consistency, the run's own settings each time."""

    number: int
    model: str
    base_url: str
    api_key_env: str
    timeout_seconds: float
    temperature: float
    seed: int | None
    max_output_tokens: int
    structured: bool
    system_text: str
    user_text: str


@dataclass(frozen=True)
class MemberOutcome:
    member: int
    result: CallResult | None = None
    reply: ParsedReply | None = None
    failure: CallFailed | None = None
    counted: bool = True
    estimated_prompt_tokens: int = 0


def members_of(run: JudgeRun) -> list[Member]:
    snapshot = run.settings_snapshot
    ensemble = snapshot["ensemble"]
    if ensemble["kind"] == ensemble_vote.SELF_CONSISTENCY:
        prompt = run.prompt
        return [
            Member(
                number=n,
                model=snapshot["model"],
                base_url=snapshot.get("base_url", ""),
                api_key_env=snapshot.get("api_key_env", ""),
                timeout_seconds=float(snapshot.get("timeout_seconds", 120)),
                temperature=float(snapshot.get("temperature", 0.0)),
                # One seed for every sample would make them one answer.
                seed=None if snapshot.get("seed") is None else int(snapshot["seed"]) + n - 1,
                max_output_tokens=int(snapshot.get("max_output_tokens", 4096)),
                structured=structured_asked(snapshot),
                system_text=prompt.system_text,
                user_text=prompt.user_text,
            )
            for n in range(1, int(ensemble["samples"]) + 1)
        ]
    prompts = PromptTemplate.objects.in_bulk([m["prompt"] for m in ensemble["members"]])
    return [
        Member(
            number=n,
            model=m["model"],
            base_url=m["base_url"],
            api_key_env=m["api_key_env"],
            timeout_seconds=float(m["timeout_seconds"]),
            temperature=float(m["temperature"]),
            seed=m["seed"],
            max_output_tokens=int(m["max_output_tokens"]),
            structured=bool(m["structured_output"]),
            system_text=prompts[m["prompt"]].system_text,
            user_text=prompts[m["prompt"]].user_text,
        )
        for n, m in enumerate(ensemble["members"], start=1)
    ]


def ensemble_execute(*, run: JudgeRun, task: JudgeTask, lane, criteria: list[Criterion]) -> None:
    """One attempt: the members without an answer from an earlier attempt are called."""
    if lane.members is None:
        lane.members = members_of(run)
    answered = set(
        MemberVerdict.objects.filter(task=task).values_list("member", flat=True).distinct()
    )
    outcomes = [
        _member_call(run=run, task=task, lane=lane, member=member, criteria=criteria)
        for member in lane.members
        if member.number not in answered
    ]
    lane.record(
        partial(
            ensemble_recorded,
            run=run,
            task=task,
            criteria=criteria,
            size=len(lane.members),
            outcomes=outcomes,
        )
    )


def _member_call(
    *, run: JudgeRun, task: JudgeTask, lane, member: Member, criteria: list[Criterion]
) -> MemberOutcome:
    request = build_judge_request(
        system_text=member.system_text,
        user_text=member.user_text,
        dialogue=task.response.case.dialogue,
        response=task.response.text,
        criteria=[
            PromptCriterion(c.position, c.ability.label, c.weight, c.text, c.is_catastrophic)
            for c in criteria
        ],
        structured=member.structured,
    )
    # Each call gets the task's full lease: k calls in a row outlast one call's lease.
    JudgeTask.objects.filter(pk=task.pk, lease_token=task.lease_token).update(
        lease_until=timezone.now() + timedelta(seconds=lease_seconds(run))
    )
    _pace(lane)
    key = (member.base_url, member.api_key_env, member.timeout_seconds)
    try:
        if key not in lane.clients:
            lane.clients[key] = client_new(
                base_url=member.base_url,
                api_key_env=member.api_key_env,
                timeout=member.timeout_seconds,
            )
        lane.record(partial(call_started, task=task, tokens=request_tokens(request.messages)))
        result = call_chat(
            lane.clients[key],
            model=member.model,
            request=request,
            temperature=member.temperature,
            seed=member.seed,
            max_tokens=member.max_output_tokens,
        )
    except CallFailed as exc:
        counted, refund = lane.gate.failed(task, exc) if lane.gate else (True, [])
        if refund:
            lane.record(partial(budget_refund, task_ids=refund))
        timed_out = exc.outcome == JudgeAttempt.Outcome.TIMEOUT
        return MemberOutcome(
            member.number,
            failure=exc,
            counted=counted,
            estimated_prompt_tokens=request_tokens(request.messages) if timed_out else 0,
        )
    if lane.gate is not None:
        lane.gate.answered()
    try:
        reply = parse_reply(
            result.content, expected=len(criteria), numbers=[c.position for c in criteria]
        )
    except ReplyInvalid as exc:
        failure = CallFailed(
            JudgeAttempt.Outcome.INVALID, str(exc), retryable=True, raw=result.content or ""
        )
        return MemberOutcome(member.number, result=result, failure=failure)
    return MemberOutcome(member.number, result=result, reply=reply)


def _pace(lane) -> None:
    if lane.min_interval:
        wait = lane.last_call + lane.min_interval - time.monotonic()
        if wait > 0:
            time.sleep(wait)
    lane.last_call = time.monotonic()


def _attempt(task: JudgeTask, outcome: MemberOutcome) -> JudgeAttempt:
    result, failure = outcome.result, outcome.failure
    return JudgeAttempt(
        task=task,
        number=task.attempts,
        member=outcome.member,
        outcome=failure.outcome if failure else JudgeAttempt.Outcome.OK,
        error=failure.message if failure else "",
        http_status=failure.http_status if failure else None,
        raw_output=(result.content or "") if result else (failure.raw[:20000] if failure else ""),
        model_reasoning=result.reasoning[:100_000] if result else "",
        latency_ms=result.latency_ms if result else failure.latency_ms,
        prompt_tokens=(result.prompt_tokens if result else 0) + outcome.estimated_prompt_tokens,
        completion_tokens=result.completion_tokens if result else 0,
        tokens_estimated=bool(outcome.estimated_prompt_tokens),
        reply_form=outcome.reply.form if outcome.reply else "",
        provider_model=result.model if result else "",
        system_fingerprint=result.system_fingerprint if result else "",
        worker=worker_name(),
    )


def ensemble_recorded(
    rows: list,
    *,
    run: JudgeRun,
    task: JudgeTask,
    criteria: list[Criterion],
    size: int,
    outcomes: list[MemberOutcome],
) -> None:
    """Run by `Lane.record`. With answers from more than half the members the task is done,
    each criterion decided by a majority of all members or left without a verdict; with
    fewer, no criterion can have a majority, so the attempt failed (retried for the members
    still missing while attempts are left)."""
    votes: dict[int, list[bool]] = defaultdict(list)
    answered = set()
    for member, criterion_id, hit in MemberVerdict.objects.filter(task=task).values_list(
        "member", "criterion_id", "hit"
    ):
        answered.add(member)
        votes[criterion_id].append(hit)
    for outcome in outcomes:
        if outcome.reply is not None:
            answered.add(outcome.member)
            for criterion, verdict in zip(criteria, outcome.reply.verdicts, strict=True):
                votes[criterion.pk].append(verdict.hit)
    prompt_tokens = sum(_attempt(task, o).prompt_tokens for o in outcomes)
    completion_tokens = sum(o.result.completion_tokens for o in outcomes if o.result)
    failures = [o for o in outcomes if o.failure is not None]
    message = "; ".join(f"member {o.member}: {o.failure.message}" for o in failures)
    now = timezone.now()
    decided = 2 * len(answered) > size
    if decided:
        changes = {"status": JudgeTask.Status.DONE, "finished": now, "reasoning": ""}
    else:
        message = f"attempt {task.attempts}: {len(answered)} of {size} members answered" + (
            f" ({message})" if message else ""
        )
        changes = _retry_or_fail(run, task, failures, now, message)
    ended = task_still_ours(task).update(
        lease_token="",
        last_error=message,
        prompt_tokens=F("prompt_tokens") + prompt_tokens,
        completion_tokens=F("completion_tokens") + completion_tokens,
        **changes,
    )
    if not ended:
        return  # the lease ran out and another lane took the task over
    rows.extend(_attempt(task, o) for o in outcomes)
    for outcome in outcomes:
        if outcome.reply is not None:
            rows.extend(
                MemberVerdict(
                    task=task,
                    member=outcome.member,
                    criterion=c,
                    hit=v.hit,
                    reasoning=v.reasoning,
                )
                for c, v in zip(criteria, outcome.reply.verdicts, strict=True)
            )
    if decided:
        for criterion in criteria:
            hits = votes[criterion.pk]
            unit = ensemble_vote.UnitVotes(
                met=sum(hits), not_met=len(hits) - sum(hits), failed=size - len(hits)
            )
            if unit.verdict is not None:
                rows.append(Verdict(task=task, criterion=criterion, hit=unit.verdict))


def _retry_or_fail(run: JudgeRun, task: JudgeTask, failures, now, message: str) -> dict:
    max_attempts = int(run.settings_snapshot.get("max_attempts", 5))
    retryable = any(o.failure.retryable for o in failures) or not failures
    counted = any(o.counted for o in failures) or not failures
    if retryable and (not counted or task.attempts_counted < max_attempts):
        changes = {
            "status": JudgeTask.Status.PENDING,
            "not_before": now
            + timedelta(
                seconds=backoff_seconds(
                    task.attempts_counted,
                    max((o.failure.retry_after or 0 for o in failures), default=None) or None,
                    float(run.settings_snapshot.get("backoff_seconds", 1.0)),
                )
            ),
        }
        if not counted:
            changes["attempts_spent_before"] = F("attempts_spent_before") + 1
        return changes
    return {"status": JudgeTask.Status.FAILED, "finished": now}
