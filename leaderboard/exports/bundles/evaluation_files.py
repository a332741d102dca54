"""A gate evaluation's files in a bundle: its record, its report, the round's items and
votes as the evaluation read them (the round as it stood when the evaluation was recorded),
the verdicts it compared and the round's sampling frame; and the judge version as the
evaluation or the board named it."""

import json
from collections import defaultdict

from annotation.models import Criterion, ReviewItem
from annotation.selectors.case_history import CaseLabelsThen
from annotation.selectors.round_history import RoundThen, round_as_of
from annotation.selectors.round_split import round_split
from annotation.selectors.vote_history import votes_as_of
from judging.models import JudgeTask, Verdict
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.frame import frame_files
from leaderboard.models import GateEvaluation, LeaderboardSnapshot
from leaderboard.report.selectors.agreement import RoundTask, rater_pseudonyms, round_tasks


def judge_version_record(version, label: str) -> dict:
    """The version, its configuration named as in `label`, the judge's name when the board
    was published or the evaluation recorded (renaming a judge rewrites no evidence)."""
    suffix = f" v{version.number}"
    return {
        "config": label.removesuffix(suffix) if label.endswith(suffix) else version.config.name,
        "number": version.number,
        "fingerprint": version.fingerprint,
        "created": version.created.isoformat(),
        "settings": version.settings(),
    }


def judge_name(record: GateEvaluation | LeaderboardSnapshot) -> str:
    """The judge's name as the evaluation or the board recorded it (the version's label when
    it recorded none)."""
    return record.judge_name or record.judge_version.label


def _hits_by_task(task_ids) -> dict[int, list[bool]]:
    hits: dict[int, list[bool]] = defaultdict(list)
    for task, hit in (
        Verdict.objects.filter(task_id__in=task_ids)
        .order_by("task_id", "criterion__position")
        .values_list("task_id", "hit")
    ):
        hits[task].append(hit)
    return hits


def task_rows(tasks) -> list[dict]:
    """One line per task: its case, system, rubric version, status and hits in rubric order."""
    rows = list(
        tasks.order_by("case__position", "system__name", "pk").values_list(
            "pk",
            "run_id",
            "case__external_id",
            "system__name",
            "rubric_version__number",
            "status",
        )
    )
    hits = _hits_by_task([row[0] for row in rows if row[5] == JudgeTask.Status.DONE])
    return [
        {
            "run": run,
            "question_id": qid,
            "system": system,
            "rubric_version": version,
            "status": status,
            "hits": [int(hit) for hit in hits.get(pk, [])],
        }
        for pk, run, qid, system, version, status in rows
    ]


def evaluation_tasks(evaluation: GateEvaluation, then: RoundThen) -> dict[int, RoundTask]:
    """Per response of the evaluation's round `then`, the task whose verdicts it read."""
    runs = list(evaluation.runs.all()) or [evaluation.run]
    tasks = round_tasks(round_=evaluation.round, runs=runs)
    return {response: task for response, task in tasks.items() if then.has(response)}


def evaluation_files(
    evaluation: GateEvaluation, prefix: str, labels: CaseLabelsThen
) -> tuple[dict, set[int]]:
    round_, run = evaluation.round, evaluation.run
    # The round as the evaluation read it: its items then, with the chances they had then.
    then = round_as_of(round_=round_, when=evaluation.created)
    items = [
        (*row, then.chances[row[0]])
        for row in ReviewItem.objects.filter(round=round_).values_list(
            "response_id",
            "response__case__external_id",
            "response__system__name",
            "rubric_version_id",
            "rubric_version__number",
            "hand_out_rank",
        )
        if then.has(row[0])
    ]
    by_response = {row[0]: (row[1], row[2]) for row in items}
    # Items are written in the order the report read them; each is numbered by its place in
    # the hand-out order (rank, then response), which the sequential test follows.
    numbers = {
        row[0]: n for n, row in enumerate(sorted(items, key=lambda r: (r[5], r[0])), start=1)
    }
    positions = dict(
        Criterion.objects.filter(rubric_version_id__in={row[3] for row in items}).values_list(
            "pk", "position"
        )
    )
    names = rater_pseudonyms(round_=round_)
    votes = [
        [
            *by_response[response],
            positions[criterion],
            names[expert],  # every rater with votes in the round has one
            int(hit),
        ]
        for response, criterion, expert, hit in votes_as_of(round_=round_, when=evaluation.created)
        if criterion in positions
    ]
    # The tasks whose verdicts the evaluation read: per response, the newest of its runs'.
    runs = list(evaluation.runs.all()) or [run]
    chosen = [task.pk for task in evaluation_tasks(evaluation, then).values()]
    verdicts = task_rows(JudgeTask.objects.filter(pk__in=chosen))
    files = {
        prefix + layout.EVALUATION: layout.json_bytes(
            {
                "id": evaluation.pk,
                "round": round_.name,
                "round_opened": round_.created.isoformat(),
                "run": run.pk,
                "runs": sorted(r.pk for r in runs),
                "judge_version": judge_version_record(
                    evaluation.judge_version, judge_name(evaluation)
                ),
                "threshold": evaluation.threshold,
                "rule": evaluation.rule,
                "passed": evaluation.passed,
                "units": evaluation.units,
                "agreement": evaluation.agreement,
                "lower_bound": evaluation.lower_bound,
                "upper_bound": evaluation.upper_bound,
                "recorded": evaluation.created.isoformat(),
                "raters_per_item": round_.raters_per_item,
                "round_seed": round_.seed,
                "round_fraction": then.fraction,
                # The calibration/held-out split fixed when the round opened (None: none).
                "split": round_split(round_=round_, responses=set(then.chances)),
            }
        ),
        prefix + layout.REPORT_JSON: layout.json_bytes(evaluation.report),
        prefix + layout.ITEMS: layout.csv_bytes(
            layout.ITEM_FIELDS,
            [
                (numbers[response], qid, system, number, rank, response, "" if p is None else p)
                for response, qid, system, _, number, rank, p in items
            ],
        ),
        prefix + layout.VOTES: layout.csv_bytes(layout.VOTE_FIELDS, votes),
        prefix + layout.EVALUATION_VERDICTS: layout.jsonl_bytes(verdicts),
    }
    frame, sampling = frame_files(round_, [(row[0], row[5]) for row in items], prefix, then, labels)
    files.update(frame)
    record = json.loads(files[prefix + layout.EVALUATION])
    files[prefix + layout.EVALUATION] = layout.json_bytes({**record, "sampling": sampling})
    return files, {row[3] for row in items}
