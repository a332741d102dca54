"""The judge's calls, for a lab that re-judges or audits: per task an LLM judged, the exact
request (messages and response format, rebuilt as the run built it, with its request hash),
the raw reply with the model's own reasoning, and which form the reply took. Imported
verdicts made no call and have none."""

from judging.models import JudgeAttempt, JudgeRun, JudgeTask
from judging.services.execution import criteria_load, task_prepare


def judge_calls(task_ids) -> list[dict]:
    tasks = list(
        JudgeTask.objects.filter(
            pk__in=task_ids,
            status=JudgeTask.Status.DONE,
            run__source=JudgeRun.Source.LLM,
            run__kind=JudgeRun.Kind.JUDGE,
        )
        .select_related(
            "run__judge_version__prompt", "response__case", "case", "system", "rubric_version"
        )
        .order_by("case__position", "system__name", "pk")
    )
    # The answer a task was given: its own last good attempt, or its cache source's.
    answered = {task.pk: task.cached_from_id or task.pk for task in tasks}
    replies = {}
    for task, raw, reasoning, form in (
        JudgeAttempt.objects.filter(
            task_id__in=set(answered.values()), outcome=JudgeAttempt.Outcome.OK
        )
        .order_by("task_id", "number")
        .values_list("task_id", "raw_output", "model_reasoning", "reply_form")
    ):
        replies[task] = (raw, reasoning, form)
    criteria: dict[int, list] = {}
    criteria_load(criteria, {task.rubric_version_id for task in tasks})
    rows = []
    for task in tasks:
        prepared = task_prepare(run=task.run, task=task, criteria=criteria[task.rubric_version_id])
        raw, reasoning, form = replies.get(answered[task.pk], ("", "", ""))
        rows.append(
            {
                "run": task.run_id,
                "question_id": task.case.external_id,
                "system": task.system.name,
                "rubric_version": task.rubric_version.number,
                "criterion_numbers": [c.position for c in criteria[task.rubric_version_id]],
                "messages": prepared.request.messages,
                "response_format": prepared.request.response_format,
                "request_hash": task.request_hash,
                "cached_from_task": task.cached_from_id,
                "raw_reply": raw,
                "model_reasoning": reasoning,
                "reply_form": form,
            }
        )
    return rows


def abandoned_calls(run_ids) -> list[dict]:
    """The calls of the runs that were sent but never answered (a lane stopped, a process
    was killed, the run was cancelled): each with its task's status and the prompt tokens
    estimated from its request, which the run's cost counts."""
    return [
        {
            "run": run,
            "question_id": qid,
            "system": system,
            "attempt": number,
            "outcome": JudgeAttempt.Outcome.ABANDONED.value,
            "task_status": status,
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "tokens_estimated": estimated,
            "latency_ms": latency,
        }
        for run, qid, system, number, status, prompt, completion, estimated, latency in (
            JudgeAttempt.objects.filter(
                task__run_id__in=list(run_ids), outcome=JudgeAttempt.Outcome.ABANDONED
            )
            .order_by("task__run_id", "task__case__position", "task__system__name", "number")
            .values_list(
                "task__run_id",
                "task__case__external_id",
                "task__system__name",
                "number",
                "task__status",
                "prompt_tokens",
                "completion_tokens",
                "tokens_estimated",
                "latency_ms",
            )
        )
    ]
