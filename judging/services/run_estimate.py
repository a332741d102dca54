"""What a judge run would cost before it runs (`judge --dry-run`): its tasks, the answers
already cached, the prompt and completion tokens it would use and their price.

The tasks are planned exactly as `judge_run_start` plans them (the benchmark's anchors it
would add included) and their requests built in memory, so the estimate covers the very
tasks and requests a real run would have, and nothing is written (no id is used).
Tokens are estimated from the text (about one token per two CJK characters and per four
other characters), corrected by what this model's earlier runs actually reported when
there are any; completions from this model's earlier answers per criterion, or a default.
"""

from collections.abc import Sequence
from decimal import Decimal

from annotation.models import Benchmark, Response, ReviewRound, System
from judging.ensemble_vote import ensemble_size
from judging.models import JudgeRun, JudgeTask, JudgeVersion
from judging.services.execution import criteria_load, task_prepare
from judging.services.output_probe import output_mode_decide, output_settings
from judging.services.runs import config_snapshot, judge_run_plan
from judging.text_measure import messages_tokens

# Completion tokens per criterion when the model has no earlier answer to go by: a short
# reasoning and the verdict, as the default judge prompts ask.
DEFAULT_COMPLETION_PER_CRITERION = 35
DEFAULT_COMPLETION_OVERHEAD = 20
# Earlier tasks read for the model's actual token counts.
HISTORY = 500


def _request_tokens(messages: list[dict]) -> int:
    return messages_tokens([str(m.get("content", "")) for m in messages])


def _history(version: JudgeVersion) -> tuple[float | None, float | None]:
    """(actual / estimated prompt tokens, completion tokens per criterion) over the model's
    recent answered tasks; None where there is none."""
    done = list(
        JudgeTask.objects.filter(
            run__judge_version__model=version.model,
            # An ensemble's task holds all its members' tokens, not one call's.
            run__judge_version__ensemble__isnull=True,
            status=JudgeTask.Status.DONE,
            cached_from__isnull=True,
            prompt_tokens__gt=0,
        )
        .select_related("run__judge_version__prompt", "response__case")
        .order_by("-pk")[:HISTORY]
    )
    if not done:
        return None, None
    criteria: dict[int, list] = {}
    criteria_load(criteria, {t.rubric_version_id for t in done})
    estimated = sum(
        _request_tokens(
            task_prepare(run=t.run, task=t, criteria=criteria[t.rubric_version_id]).request.messages
        )
        for t in done
    )
    actual = sum(t.prompt_tokens for t in done)
    counted = sum(len(criteria[t.rubric_version_id]) for t in done) or 1
    return actual / max(1, estimated), sum(t.completion_tokens for t in done) / counted


def run_estimate(
    *,
    benchmark: Benchmark,
    systems: Sequence[System],
    version: JudgeVersion,
    round_: ReviewRound | None = None,
    fresh_calls: bool = False,
    failed_generations: bool = False,
) -> dict:
    """The estimate for the run `judge_run_start` would create with these arguments.
    Nothing is written and no id is used: the tasks are planned as the run would have them
    (`judge_run_plan`) and their requests built in memory; `version` may be unsaved (a
    dry run's settings). Raises what judge_run_plan raises. No call is made: the requests
    are built as the endpoint's stored answer on structured output says, or as the version
    asks."""
    plan = judge_run_plan(
        benchmark=benchmark,
        systems=systems,
        version=version,
        round_=round_,
        failed_generations=failed_generations,
    )
    responses = plan.tasks + plan.anchors
    output = output_settings(output_mode_decide(version=version, probe=False))
    run = JudgeRun(
        benchmark=benchmark,
        judge_version=version,
        settings_snapshot={**config_snapshot(version), **output},
        fresh_calls=fresh_calls,
    )
    texts = Response.objects.select_related("case").in_bulk([row[0] for row in responses])
    tasks = [
        JudgeTask(
            run=run,
            response=texts[pk],
            case_id=c,
            system_id=s,
            rubric_version_id=v,
            anchor=pk in plan.anchor_responses,
        )
        for pk, c, s, v in responses
    ]
    criteria: dict[int, list] = {}
    criteria_load(criteria, {t.rubric_version_id for t in tasks})
    prepared = [
        task_prepare(run=run, task=t, criteria=criteria[t.rubric_version_id]) for t in tasks
    ]
    cached = set()
    # An ensemble makes one call per member and never reuses cached answers; nor do the
    # anchors (outcomes.cached_reuse).
    members = ensemble_size(version.ensemble)
    if not fresh_calls and members == 1:
        cached = set(
            JudgeTask.objects.filter(
                request_hash__in={p.digest for p in prepared if not p.task.anchor},
                status=JudgeTask.Status.DONE,
            ).values_list("request_hash", flat=True)
        )
    to_call = [p for p in prepared if p.task.anchor or p.digest not in cached]
    snapshot = dict(run.settings_snapshot)
    ratio, per_criterion = _history(version)
    prompt = sum(_request_tokens(p.request.messages) for p in to_call) * (ratio or 1.0) * members
    if per_criterion is None:
        completion = sum(
            DEFAULT_COMPLETION_OVERHEAD + DEFAULT_COMPLETION_PER_CRITERION * len(p.criteria)
            for p in to_call
        )
    else:
        completion = per_criterion * sum(len(p.criteria) for p in to_call)
    completion *= members
    price_in = Decimal(snapshot.get("price_prompt_per_1k", "0"))
    price_out = Decimal(snapshot.get("price_completion_per_1k", "0"))
    cost = (Decimal(round(prompt)) * price_in + Decimal(round(completion)) * price_out) / 1000
    return {
        "tasks": len(prepared),
        # Of the tasks, the benchmark's anchors the run would add (see judge_run_start).
        "anchor_tasks": len(plan.anchors),
        "cached": len(prepared) - len(to_call),
        "calls": len(to_call) * members,
        "prompt_tokens": round(prompt),
        "completion_tokens": round(completion),
        "calibrated_from_history": ratio is not None,
        "price_prompt_per_1k": str(price_in),
        "price_completion_per_1k": str(price_out),
        "cost": str(cost.quantize(Decimal("0.0001"))),
    }
