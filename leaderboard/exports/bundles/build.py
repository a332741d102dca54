"""Writing the evidence bundle of a published leaderboard: the board, the gate evaluation it
rests on (report JSON and PDF, the round's items, the votes as they stood when it was
recorded, the evaluated run's verdicts), the judge version with its prompt's full text,
the rubric versions in HeartBench's question format and a manifest with every file's
SHA-256. The zip file is written with the standard library's zipfile.

A bundle is the evidence as it stood when the board was published: every input is read as
of then (an evaluation's round as of the evaluation), so the same board always gives the
same bundle, whatever happened since."""

import json
from collections import defaultdict
from typing import IO

from django.conf import settings
from django.utils import translation

from annotation.models import Ability, Criterion, RubricVersion
from annotation.selectors.case_history import CaseLabelsThen, case_labels_as_of
from annotation.selectors.rater_pseudonyms import round_rater_pseudonyms_as_of
from annotation.selectors.round_history import round_as_of
from config.version import CONCORD_VERSION
from judging.models import JudgeTask
from leaderboard.boards.selectors.runs import BoardRuns
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.archive import archive_write, code_commit
from leaderboard.exports.bundles.calibration import calibration_record
from leaderboard.exports.bundles.calls import judge_calls
from leaderboard.exports.bundles.citation import bundle_hash_store
from leaderboard.exports.bundles.corrected_build import corrected_board_file, corrected_inputs_files
from leaderboard.exports.bundles.evaluation_files import (
    evaluation_files,
    evaluation_tasks,
    judge_name,
    judge_version_record,
    task_rows,
)
from leaderboard.exports.bundles.guidance import guidance_digests, guidance_record
from leaderboard.exports.bundles.keys import signing_key_current
from leaderboard.exports.bundles.records import board_csv, policy_as_of, response_lines, runs_record
from leaderboard.exports.bundles.verify_evaluation import evaluation_units
from leaderboard.models import GateEvaluation, LeaderboardSnapshot


def _rubric_lines(version_ids, labels: CaseLabelsThen) -> list[dict]:
    """The rubric versions, their cases labelled as at publication (`labels`)."""
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
            "question_id": qid,
            "rubric_version": version.number,
            "difficulty": labels.difficulty_of(qid, case.difficulty),
            "primary_scene": labels.primary_of(qid, scene.primary if scene else ""),
            "secondary_scene": labels.secondary_of(qid, scene.secondary if scene else ""),
            "dialogue": case.dialogue,
            "rubric": criteria[version.pk],
        }
        for version in versions
        for case, scene in [(version.case, version.case.scenario)]
        for qid in [case.external_id]
    ]


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
        run=f"#{evaluation.run_id} · {judge_name(evaluation)}",
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
    board_verdicts = task_rows(board_tasks)
    then = round_as_of(round_=evaluation.round, when=evaluation.created)
    judged = set(board_tasks.values_list("pk", flat=True)) | set(
        task.pk for task in evaluation_tasks(evaluation, then).values()
    )
    prefix = layout.EVALUATION_DIR.format(id=evaluation.pk)
    # Case labels (difficulty, scene) as the board was published with them.
    labels = case_labels_as_of(benchmark=snapshot.benchmark, when=snapshot.created)
    files, item_versions = evaluation_files(evaluation, prefix, labels)
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
        earlier_files, earlier_versions = evaluation_files(
            earlier, layout.EVALUATION_DIR.format(id=earlier.pk), labels
        )
        files.update(earlier_files)
        item_versions |= earlier_versions
    if snapshot.corrected_by_id is not None:
        corrected, corrected_versions = corrected_inputs_files(snapshot, labels)
        files.update(corrected)
        item_versions |= corrected_versions
    versions = set(board_tasks.values_list("rubric_version_id", flat=True)) | item_versions
    rubric_lines = _rubric_lines(versions, labels)
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
                    "judge_version": judge_name(snapshot),
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
            layout.JUDGE_VERSION: layout.json_bytes(
                judge_version_record(snapshot.judge_version, judge_name(snapshot))
            ),
            layout.RUBRICS: layout.jsonl_bytes(rubric_lines),
            layout.TAXONOMY: layout.json_bytes(taxonomy),
            layout.VERDICTS: layout.jsonl_bytes(board_verdicts),
            layout.RUNS: layout.json_bytes(runs_record(runs, evaluation, snapshot.created)),
            **_expert_files(snapshot, [evaluation, *history]),
        }
    )
    if snapshot.corrected_by_id is not None:
        board = json.loads(files[layout.BOARD_JSON])
        files.update(corrected_board_file(snapshot, files, rubrics, taxonomy, board))
    if not lean:
        files[layout.RESPONSES] = layout.jsonl_bytes(response_lines(board_tasks, set(then.chances)))
        files[layout.JUDGE_CALLS] = layout.jsonl_bytes(judge_calls(judged))
    return files


def _expert_files(snapshot: LeaderboardSnapshot, evaluations: list) -> dict[str, bytes]:
    """What the raters read while they voted, and their calibration results."""
    windows = {e.pk: (e.round.created, e.created) for e in evaluations}
    # The raters of the evaluated rounds as they stood at publication (pool changes since
    # add or take away no one).
    names: dict[int, str] = {}
    for e in evaluations:
        names.update(round_rater_pseudonyms_as_of(round_=e.round, when=snapshot.created))
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
