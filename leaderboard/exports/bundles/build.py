"""Writing the evidence bundle of a published leaderboard: the board, the gate evaluation it
rests on (report JSON and PDF, the round's items, the votes as they stood when it was
recorded, the evaluated run's verdicts), the judge version with its prompt's full text,
the rubric versions in HeartBench's question format and a manifest with every file's
SHA-256. The zip file is written with the standard library's zipfile."""

import json
from collections import defaultdict
from typing import IO

from django.conf import settings
from django.utils import translation

from annotation.models import (
    Ability,
    Criterion,
    ReviewItem,
    RubricVersion,
)
from annotation.selectors.round_split import round_split
from annotation.selectors.vote_history import votes_as_of
from config.version import CONCORD_VERSION
from judging.models import JudgeTask, Verdict
from leaderboard.boards.selectors.runs import BoardRuns
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.archive import archive_write, code_commit
from leaderboard.exports.bundles.calibration import calibration_record
from leaderboard.exports.bundles.calls import judge_calls
from leaderboard.exports.bundles.citation import bundle_hash_store
from leaderboard.exports.bundles.corrected_build import corrected_board_file, corrected_inputs_files
from leaderboard.exports.bundles.frame import frame_files
from leaderboard.exports.bundles.guidance import guidance_digests, guidance_record
from leaderboard.exports.bundles.keys import signing_key_current
from leaderboard.exports.bundles.records import board_csv, policy_as_of, response_lines, runs_record
from leaderboard.exports.bundles.verify_evaluation import evaluation_units
from leaderboard.models import GateEvaluation, LeaderboardSnapshot
from leaderboard.report.selectors.agreement import rater_pseudonyms, round_tasks


def _judge_version(version) -> dict:
    return {
        "config": version.config.name,
        "number": version.number,
        "fingerprint": version.fingerprint,
        "created": version.created.isoformat(),
        "settings": version.settings(),
    }


def _hits_by_task(task_ids) -> dict[int, list[bool]]:
    hits: dict[int, list[bool]] = defaultdict(list)
    for task, hit in (
        Verdict.objects.filter(task_id__in=task_ids)
        .order_by("task_id", "criterion__position")
        .values_list("task_id", "hit")
    ):
        hits[task].append(hit)
    return hits


def _task_rows(tasks) -> list[dict]:
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


def _rubric_lines(version_ids) -> list[dict]:
    criteria: dict[int, list] = defaultdict(list)
    for version, label, weight, text, catastrophic in (
        Criterion.objects.filter(rubric_version_id__in=version_ids)
        .order_by("rubric_version_id", "position")
        .values_list("rubric_version_id", "ability__label", "weight", "text", "is_catastrophic")
    ):
        criteria[version].append(
            {"dimension": label, "score": weight, "content": text, "catastrophic": catastrophic}
        )
    versions = (
        RubricVersion.objects.filter(pk__in=version_ids)
        .select_related("case__scenario")
        .order_by("case__position", "number")
    )
    return [
        {
            "question_id": version.case.external_id,
            "rubric_version": version.number,
            "difficulty": version.case.difficulty,
            "primary_scene": version.case.scenario.primary if version.case.scenario else "",
            "secondary_scene": version.case.scenario.secondary if version.case.scenario else "",
            "dialogue": version.case.dialogue,
            "rubric": criteria[version.pk],
        }
        for version in versions
    ]


def _evaluation_files(evaluation: GateEvaluation, prefix: str) -> tuple[dict, set[int]]:
    round_, run = evaluation.round, evaluation.run
    items = list(
        ReviewItem.objects.filter(round=round_).values_list(
            "response_id",
            "response__case__external_id",
            "response__system__name",
            "rubric_version_id",
            "rubric_version__number",
            "hand_out_rank",
            "inclusion_probability",
        )
    )
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
    chosen = [task.pk for task in round_tasks(round_=round_, runs=runs).values()]
    verdicts = _task_rows(JudgeTask.objects.filter(pk__in=chosen))
    files = {
        prefix + layout.EVALUATION: layout.json_bytes(
            {
                "id": evaluation.pk,
                "round": round_.name,
                "round_opened": round_.created.isoformat(),
                "run": run.pk,
                "runs": sorted(r.pk for r in runs),
                "judge_version": _judge_version(evaluation.judge_version),
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
                "round_fraction": round_.fraction,
                # The calibration/held-out split fixed when the round opened (None: none).
                "split": round_split(round_=round_),
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
    frame, sampling = frame_files(round_, [(row[0], row[5]) for row in items], prefix)
    files.update(frame)
    record = json.loads(files[prefix + layout.EVALUATION])
    files[prefix + layout.EVALUATION] = layout.json_bytes({**record, "sampling": sampling})
    return files, {row[3] for row in items}


def _with_rubric_digests(files: dict, prefix: str, rubrics: dict) -> None:
    """The evaluation records the digest of each rubric version its items were rated on."""
    name = prefix + layout.EVALUATION
    record = json.loads(files[name])
    keys = {
        layout.rubric_key(row["question_id"], row["rubric_version"])
        for row in layout.read_csv(files[prefix + layout.ITEMS])
    }
    record["rubric_digests"] = {
        f"{qid}@{number}": layout.rubric_digest(rubrics[(qid, number)])
        for qid, number in sorted(keys)
    }
    files[name] = layout.json_bytes(record)


def _pdf(evaluation: GateEvaluation, files: dict, prefix: str, rubrics, taxonomy) -> bytes:
    # reportlab is imported when a PDF is drawn, not at every process's start-up.
    from leaderboard.report.pdf import Identification, agreement_pdf_bytes, system_hit_rates
    from leaderboard.report.typed import AgreementReport

    units = evaluation_units(files, prefix, rubrics, taxonomy)
    ident = Identification(
        benchmark=f"{evaluation.benchmark.name} ({evaluation.benchmark.slug})",
        round=evaluation.round.name,
        run=f"#{evaluation.run_id} · {evaluation.judge_version.label}",
        generated_at=evaluation.created.isoformat(timespec="minutes"),
    )
    report = AgreementReport.from_json(evaluation.report)
    return agreement_pdf_bytes(report, ident=ident, systems=system_hit_rates(units))


def bundle_files(snapshot: LeaderboardSnapshot, *, lean: bool = False) -> dict[str, bytes]:
    """Every file of the bundle but the manifest, by name (the PDF in the site's language,
    so the same snapshot always gives the same files); `lean`: without the response texts
    and the judge's calls (`layout.LEAN_FILES`)."""
    with translation.override(settings.LANGUAGE_CODE):
        return _bundle_files(snapshot, lean=lean)


def _bundle_files(snapshot: LeaderboardSnapshot, *, lean: bool) -> dict[str, bytes]:
    evaluation = snapshot.gate
    runs = tuple(snapshot.runs.select_related("judge_version__config").order_by("-pk"))
    board = BoardRuns(benchmark=snapshot.benchmark, runs=runs, chosen_by="runs")
    counted = JudgeTask.objects.filter(pk__in=board.tasks().values("pk"))
    board_tasks = counted | JudgeTask.objects.filter(pk__in=board.failed().values("pk"))
    board_verdicts = _task_rows(board_tasks)
    judged = set(board_tasks.values_list("pk", flat=True)) | set(
        task.pk
        for task in round_tasks(
            round_=evaluation.round, runs=list(evaluation.runs.all()) or [evaluation.run]
        ).values()
    )
    prefix = layout.EVALUATION_DIR.format(id=evaluation.pk)
    files, item_versions = _evaluation_files(evaluation, prefix)
    # The judge version's whole gate history as it stood when the board was published,
    # failures included: each earlier evaluation with its own files.
    history = list(
        GateEvaluation.objects.filter(
            benchmark=snapshot.benchmark,
            judge_version=snapshot.judge_version,
            created__lte=snapshot.created,
        )
        .exclude(pk=evaluation.pk)
        .select_related("round", "run", "judge_version__config")
        .order_by("created", "pk")
    )
    for earlier in history:
        earlier_files, earlier_versions = _evaluation_files(
            earlier, layout.EVALUATION_DIR.format(id=earlier.pk)
        )
        files.update(earlier_files)
        item_versions |= earlier_versions
    if snapshot.corrected_by_id is not None:
        corrected, corrected_versions = corrected_inputs_files(snapshot)
        files.update(corrected)
        item_versions |= corrected_versions
    versions = set(board_tasks.values_list("rubric_version_id", flat=True)) | item_versions
    rubric_lines = _rubric_lines(versions)
    taxonomy = dict(
        Ability.objects.filter(criteria__rubric_version_id__in=versions)
        .distinct()
        .values_list("label", "category__name_en")
    )
    rubrics = {layout.rubric_key(r["question_id"], r["rubric_version"]): r for r in rubric_lines}
    _with_rubric_digests(files, prefix, rubrics)
    files[prefix + layout.REPORT_PDF] = _pdf(evaluation, files, prefix, rubrics, taxonomy)
    for earlier in history:
        earlier_prefix = layout.EVALUATION_DIR.format(id=earlier.pk)
        _with_rubric_digests(files, earlier_prefix, rubrics)
        files[earlier_prefix + layout.REPORT_PDF] = _pdf(
            earlier, files, earlier_prefix, rubrics, taxonomy
        )
    files.update(
        {
            layout.BOARD_JSON: layout.json_bytes(
                {
                    "snapshot": snapshot.pk,
                    "benchmark": snapshot.benchmark.slug,
                    "profile": snapshot.profile,
                    "published": snapshot.created.isoformat(),
                    "published_by": snapshot.published_by.get_username(),
                    "judge_version": f"{snapshot.judge_version.label}",
                    "runs": sorted(run.pk for run in runs),
                    "evaluations": [evaluation.pk],
                    "gate_history": [earlier.pk for earlier in history],
                    "gate_policy": policy_as_of(snapshot.benchmark, snapshot.created),
                    "rubric_changes": snapshot.rubric_changes,
                    "rubric_digests": {
                        f"{qid}@{number}": layout.rubric_digest(line)
                        for (qid, number), line in sorted(rubrics.items())
                    },
                    "rows": snapshot.rows,
                    "corrected_by": snapshot.corrected_by.name if snapshot.corrected_by else None,
                }
            ),
            layout.BOARD_CSV: board_csv(snapshot.rows),
            layout.JUDGE_VERSION: layout.json_bytes(_judge_version(snapshot.judge_version)),
            layout.RUBRICS: layout.jsonl_bytes(rubric_lines),
            layout.TAXONOMY: layout.json_bytes(taxonomy),
            layout.VERDICTS: layout.jsonl_bytes(board_verdicts),
            layout.RUNS: layout.json_bytes(runs_record(runs, evaluation)),
            **_expert_files(snapshot, [evaluation, *history]),
        }
    )
    if snapshot.corrected_by_id is not None:
        board = json.loads(files[layout.BOARD_JSON])
        files.update(corrected_board_file(snapshot, files, rubrics, taxonomy, board))
    if not lean:
        files[layout.RESPONSES] = layout.jsonl_bytes(response_lines(board_tasks, evaluation.round))
        files[layout.JUDGE_CALLS] = layout.jsonl_bytes(judge_calls(judged))
    return files


def _expert_files(snapshot: LeaderboardSnapshot, evaluations: list) -> dict[str, bytes]:
    """What the raters read while they voted, and their calibration results."""
    windows = {e.pk: (e.round.created, e.created) for e in evaluations}
    names: dict[int, str] = {}
    for e in evaluations:
        names.update(rater_pseudonyms(round_=e.round))
    return {
        layout.GUIDANCE: layout.json_bytes(
            guidance_record(snapshot.benchmark, windows, snapshot.created)
        ),
        layout.CALIBRATION: layout.json_bytes(
            calibration_record(snapshot.benchmark, names, snapshot.created)
        ),
    }


LEFT_OUT = (
    "evaluations of the judge version recorded after the board was published (the site and "
    "the API mark a board that a later failure superseded)",
)


def bundle_write(
    snapshot: LeaderboardSnapshot, out: IO[bytes], *, sign: bool = True, lean: bool = False
) -> dict:
    """Write the snapshot's bundle as a zip file to `out`, signed with the installation's
    current key unless `sign` is off; returns its manifest. The same snapshot gives the same
    files (the PDF in the site's language), so the bundle's hash can be cited: the full
    bundle's, which a `lean` one (without the re-judging material) does not replace."""
    files = bundle_files(snapshot, lean=lean)
    manifest = archive_write(
        out,
        files,
        header={
            "concord": CONCORD_VERSION,
            "commit": code_commit(),
            "created": snapshot.created.isoformat(),
            "snapshot": snapshot.pk,
            "benchmark": snapshot.benchmark.slug,
            "language": settings.LANGUAGE_CODE,
            # What an auditor or a re-judging lab would look for and this bundle does not
            # carry yet: said, never silently missing.
            "left_out": [*LEFT_OUT, *([layout.LEAN_LEFT_OUT] if lean else [])],
            "lean": lean,
            # Each guidance version's SHA-256, which verify_bundle checks its texts against.
            "guidance": guidance_digests(json.loads(files[layout.GUIDANCE])),
        },
        key=signing_key_current() if sign else None,
    )
    if not lean:
        bundle_hash_store(snapshot_id=snapshot.pk, value=manifest["bundle_sha256"])
    return manifest
