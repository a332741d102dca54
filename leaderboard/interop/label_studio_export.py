"""A round as Label Studio tasks (annotation.interop.label_studio describes the shape).

Each item is a task: the dialogue, the response and its criteria as data; each rater's
current submission as an annotation (`completed_by`: the rater's pseudonym, `lead_time`:
their active seconds); each judge run's verdicts as a prediction (`model_version`: the
judge version's label); a reference item's known answers as a ground-truth annotation.
"""

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from annotation.interop.label_studio import (
    REFERENCE_RATER,
    ConfigLabels,
    choice_region,
    criterion_control,
    label_config,
    note_region,
)
from annotation.models import ReferenceAnswer, ReviewItem, ReviewRound, Vote
from annotation.selectors.rubrics import criteria_by_version
from judging.models import JudgeRun, JudgeTask, Verdict
from leaderboard.report.selectors.agreement import rater_pseudonyms


@dataclass(frozen=True)
class LabelStudioExport:
    config: str
    tasks: list[dict]


def label_studio_runs(*, round_: ReviewRound) -> list[JudgeRun]:
    """The judge runs whose verdicts an export shows by default: for each judge version
    that judged the round's benchmark, its newest finished run."""
    chosen: dict[int, JudgeRun] = {}
    runs = (
        JudgeRun.objects.finished()
        .filter(benchmark=round_.benchmark)
        .select_related("judge_version__config")
        .newest_first()
    )
    for run in runs:
        chosen.setdefault(run.judge_version_id, run)
    return list(chosen.values())


def _config_labels() -> ConfigLabels:
    return ConfigLabels(
        met=_("met"),
        not_met=_("not met"),
        note=_("note (optional)"),
        response=_("Response"),
    )


def _annotations(round_: ReviewRound) -> dict[int, list[dict]]:
    """Per item: each rater's current submission, as Label Studio annotations."""
    pseudonym = rater_pseudonyms(round_=round_)
    rows = (
        Vote.objects.current()
        .filter(assignment__item__round=round_)
        .order_by("assignment__item_id", "assignment__expert_id", "criterion__position")
        .values_list(
            "assignment__item_id",
            "assignment_id",
            "assignment__expert_id",
            "assignment__active_seconds",
            "assignment__submitted",
            "criterion__position",
            "hit",
            "note",
        )
    )
    annotations: dict[int, dict[int, dict]] = defaultdict(dict)
    for item_id, assignment_id, expert_id, seconds, submitted, position, hit, note in rows:
        annotation = annotations[item_id].get(assignment_id)
        if annotation is None:
            annotation = annotations[item_id][assignment_id] = {
                "completed_by": pseudonym[expert_id],
                "lead_time": float(seconds),
                "created_at": submitted.isoformat() if submitted else None,
                "ground_truth": False,
                "was_cancelled": False,
                "result": [],
            }
        regions = annotation["result"]
        regions.append(choice_region(position, hit, f"a{assignment_id}-{position}"))
        if note:
            regions.append(note_region(position, note, f"a{assignment_id}-{position}-note"))
    return {item: list(by_assignment.values()) for item, by_assignment in annotations.items()}


def _references(round_: ReviewRound) -> dict[int, dict]:
    """Per reference item: its known answers, as a ground-truth annotation."""
    found: dict[int, dict] = {}
    for item_id, position, hit, explanation in (
        ReferenceAnswer.objects.filter(item__round=round_)
        .order_by("item_id", "criterion__position")
        .values_list("item_id", "criterion__position", "hit", "explanation")
    ):
        annotation = found.setdefault(
            item_id,
            {"completed_by": REFERENCE_RATER, "ground_truth": True, "result": []},
        )
        annotation["result"].append(choice_region(position, hit, f"r{item_id}-{position}"))
        if explanation:
            annotation["result"].append(
                note_region(position, explanation, f"r{item_id}-{position}-note")
            )
    return found


def _predictions(
    runs: Sequence[JudgeRun], items: dict[int, tuple[int, int]]
) -> dict[int, list[dict]]:
    """Per item: each run's verdicts on the item's response, when the run judged the
    rubric version the item froze (verdicts on another wording are not about its criteria)."""
    by_response = {response: (item, version) for item, (response, version) in items.items()}
    labels = {run.pk: run.judge_version.label for run in runs}
    tasks = {
        pk: (run_id, by_response[response][0])
        for pk, run_id, response, version in JudgeTask.objects.requested()
        .filter(
            run__in=list(labels), status=JudgeTask.Status.DONE, response_id__in=list(by_response)
        )
        .values_list("pk", "run_id", "response_id", "rubric_version_id")
        if by_response[response][1] == version
    }
    predictions: dict[tuple[int, int], dict] = {}
    for task_id, position, hit in (
        Verdict.objects.filter(task_id__in=list(tasks))
        .order_by("task_id", "criterion__position")
        .values_list("task_id", "criterion__position", "hit")
    ):
        run_id, item_id = tasks[task_id]
        prediction = predictions.setdefault(
            (item_id, run_id), {"model_version": labels[run_id], "result": []}
        )
        prediction["result"].append(choice_region(position, hit, f"j{task_id}-{position}"))
    found: dict[int, list[dict]] = defaultdict(list)
    for (item_id, _run), prediction in sorted(predictions.items()):
        found[item_id].append(prediction)
    return found


def label_studio_export(
    *, round_: ReviewRound, runs: Sequence[JudgeRun] | None = None
) -> LabelStudioExport:
    """The round's items as Label Studio tasks, with the labelling config they need.
    `runs` defaults to `label_studio_runs`."""
    if runs is None:
        runs = label_studio_runs(round_=round_)
    items = list(
        ReviewItem.objects.filter(round=round_)
        .order_by("pk")
        .values_list(
            "pk",
            "code",
            "is_reference",
            "response_id",
            "response__text",
            "response__system__name",
            "response__case__external_id",
            "response__case__dialogue",
            "rubric_version_id",
            "rubric_version__number",
        )
    )
    criteria = criteria_by_version({row[8] for row in items})
    annotations = _annotations(round_)
    references = _references(round_)
    predictions = _predictions(runs, {row[0]: (row[3], row[8]) for row in items})
    tasks = []
    for (
        pk,
        code,
        is_reference,
        _response,
        text,
        system,
        question_id,
        dialogue,
        version_id,
        number,
    ) in items:
        data = {
            "benchmark": round_.benchmark.slug,
            "round": round_.name,
            "item": code,
            "question_id": question_id,
            "system": system,
            "rubric_version": number,
            "dialogue": dialogue,
            "response": text,
            "is_reference": is_reference,
        }
        for _pk, position, wording in criteria[version_id]:
            data[criterion_control(position)] = f"{position}. {wording}"
        task_annotations = list(annotations.get(pk, []))
        if pk in references:
            task_annotations.append(references[pk])
        tasks.append(
            {
                "data": data,
                "annotations": task_annotations,
                "predictions": predictions.get(pk, []),
            }
        )
    positions = max((len(c) for c in criteria.values()), default=0)
    return LabelStudioExport(
        config=label_config(positions=positions, labels=_config_labels()), tasks=tasks
    )
