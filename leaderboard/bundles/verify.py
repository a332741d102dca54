"""Checking an evidence bundle from the bundle alone (no Django, no database): every file
against the manifest's SHA-256, the board's scores recomputed from its verdicts and
rubrics, and each gate evaluation's agreement recomputed from its votes and verdicts.

A changed vote or verdict fails twice over: its file no longer matches the manifest, and
the numbers recomputed from it no longer match what the board or report claims. Each
problem names the file it was found in.
"""

import hashlib
import json
import math
import zipfile
from collections import defaultdict
from dataclasses import dataclass, field
from typing import IO

from judging.scoring import CaseVerdicts, Profile, ScoredCriterion, score_system
from leaderboard.agreement import (
    FAILED,
    NOT_JUDGED,
    OTHER_VERSION,
    GateRule,
    Unit,
    agreement_report,
)
from leaderboard.bundles import layout

TOLERANCE = 1e-9
# The report's numbers that must be recomputed exactly (within TOLERANCE).
REPORT_NUMBERS = (
    "percent_agreement",
    "cohen_kappa",
    "gwet_ac1",
    "pabak",
    "binomial_p",
    "binomial_log10_p",
)
REPORT_INTERVALS = ("wilson_95", "bootstrap_95")
HUMAN_NUMBERS = ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "pairwise_agreement")
SCORE_NUMBERS = ("overall", "normal", "hard", "relative_decline")


@dataclass(frozen=True)
class Problem:
    file: str
    message: str


@dataclass
class Verification:
    checked: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict:
        return {
            "ok": self.ok,
            "checked": self.checked,
            "problems": [{"file": p.file, "message": p.message} for p in self.problems],
        }


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(float(a), float(b), rel_tol=0.0, abs_tol=TOLERANCE)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check_manifest(archive: zipfile.ZipFile, result: Verification) -> dict[str, bytes]:
    names = set(archive.namelist())
    if layout.MANIFEST not in names:
        result.problems.append(Problem(layout.MANIFEST, "the bundle has no manifest"))
        return {}
    manifest = json.loads(archive.read(layout.MANIFEST))
    if manifest.get("format") != layout.FORMAT:
        result.problems.append(Problem(layout.MANIFEST, "not a Concord evidence bundle"))
        return {}
    listed = manifest.get("files", {})
    files = {}
    for name, entry in sorted(listed.items()):
        if name not in names:
            result.problems.append(Problem(name, "listed in the manifest but missing"))
            continue
        data = archive.read(name)
        if _sha256(data) != entry.get("sha256"):
            result.problems.append(
                Problem(name, "its SHA-256 differs from the manifest: the file was changed")
            )
        files[name] = data
    for name in sorted(names - set(listed) - {layout.MANIFEST}):
        result.problems.append(Problem(name, "not listed in the manifest"))
    result.checked.append(f"{len(listed)} files against the manifest's SHA-256")
    return files


def _rubrics(files: dict[str, bytes]) -> dict[tuple[str, int], dict]:
    return {
        layout.rubric_key(row["question_id"], row["rubric_version"]): row
        for row in layout.read_jsonl(files.get(layout.RUBRICS, b""))
    }


def _category(taxonomy: dict[str, str], ability: str) -> str:
    return taxonomy.get(ability, "")


def _system_cases(files, rubrics, taxonomy) -> tuple[dict[str, list[CaseVerdicts]], dict]:
    cases: dict[str, list[CaseVerdicts]] = defaultdict(list)
    failed: dict[str, int] = defaultdict(int)
    for row in layout.read_jsonl(files.get(layout.VERDICTS, b"")):
        if row["status"] != "done":
            failed[row["system"]] += 1
            continue
        rubric = rubrics[layout.rubric_key(row["question_id"], row["rubric_version"])]
        criteria = rubric["rubric"]
        if len(criteria) != len(row["hits"]):
            raise ValueError(
                f"{row['question_id']} ({row['system']}): {len(row['hits'])} verdicts for "
                f"{len(criteria)} criteria"
            )
        cases[row["system"]].append(
            CaseVerdicts(
                case_id=row["question_id"],
                difficulty=rubric["difficulty"],
                scenario=rubric.get("primary_scene") or "",
                criteria=tuple(
                    ScoredCriterion(
                        ability=c["dimension"],
                        category=_category(taxonomy, c["dimension"]),
                        weight=c["score"],
                        is_catastrophic=bool(c["catastrophic"]),
                        hit=bool(hit),
                    )
                    for c, hit in zip(criteria, row["hits"], strict=True)
                ),
            )
        )
    return cases, failed


def _check_board(files: dict[str, bytes], rubrics, taxonomy, result: Verification) -> None:
    board = json.loads(files[layout.BOARD_JSON])
    profile = Profile(board["profile"])
    try:
        cases, failed = _system_cases(files, rubrics, taxonomy)
    except (KeyError, ValueError, TypeError) as exc:
        result.problems.append(Problem(layout.VERDICTS, f"cannot be scored: {exc}"))
        return
    for row in board["rows"]:
        system = row["system"]
        scores = score_system(cases.get(system, []), profile)
        recomputed = {
            "overall": scores.overall.value,
            "normal": scores.normal.value,
            "hard": scores.hard.value,
            "relative_decline": scores.relative_decline.value,
        }
        for name in SCORE_NUMBERS:
            if not _same(row.get(name), recomputed[name]):
                result.problems.append(
                    Problem(
                        layout.BOARD_JSON,
                        f"{system}: {name} {row.get(name)!r} is claimed, "
                        f"{recomputed[name]!r} is recomputed from {layout.VERDICTS}",
                    )
                )
        claimed_abilities = row.get("abilities", {})
        for label in sorted(set(claimed_abilities) | set(scores.abilities)):
            value = scores.abilities.get(label)
            if not _same(claimed_abilities.get(label), value):
                result.problems.append(
                    Problem(
                        layout.BOARD_JSON,
                        f"{system}: ability {label} {claimed_abilities.get(label)!r} is "
                        f"claimed, {value!r} is recomputed",
                    )
                )
        if row.get("cases_scored") != scores.cases_scored or row.get("cases_failed") != failed.get(
            system, 0
        ):
            result.problems.append(
                Problem(
                    layout.BOARD_JSON,
                    f"{system}: {row.get('cases_scored')} scored and {row.get('cases_failed')} "
                    f"failed cases are claimed, {scores.cases_scored} and "
                    f"{failed.get(system, 0)} are in {layout.VERDICTS}",
                )
            )
    result.checked.append(
        f"scores of {len(board['rows'])} systems recomputed from {layout.VERDICTS} "
        f"({board['profile']} profile)"
    )
    _check_board_csv(files, board, result)


def _check_board_csv(files: dict[str, bytes], board: dict, result: Verification) -> None:
    rows = {row["system"]: row for row in layout.read_csv(files.get(layout.BOARD_CSV, b""))}
    for row in board["rows"]:
        written = rows.get(row["system"])
        if written is None:
            result.problems.append(Problem(layout.BOARD_CSV, f"{row['system']} is missing"))
            continue
        for name in SCORE_NUMBERS:
            value = written.get(name, "")
            if not _same(row.get(name), float(value) if value else None):
                result.problems.append(
                    Problem(layout.BOARD_CSV, f"{row['system']}: {name} differs from board.json")
                )


def evaluation_units(files: dict[str, bytes], prefix: str, rubrics, taxonomy) -> list[Unit]:
    """The units of an evaluation, in the order the report read them."""
    votes: dict[tuple[str, str, int], list[tuple[str, bool]]] = defaultdict(list)
    for row in layout.read_csv(files[prefix + layout.VOTES]):
        key = (row["question_id"], row["system"], int(row["criterion"]))
        votes[key].append((row["rater"], row["hit"] == "1"))
    tasks = {
        (row["question_id"], row["system"]): row
        for row in layout.read_jsonl(files[prefix + layout.EVALUATION_VERDICTS])
    }
    units = []
    for item in layout.read_csv(files[prefix + layout.ITEMS]):
        qid, system, version = item["question_id"], item["system"], int(item["rubric_version"])
        rubric = rubrics[layout.rubric_key(qid, version)]
        scenario = " / ".join(
            part for part in (rubric.get("primary_scene"), rubric.get("secondary_scene")) if part
        )
        task = tasks.get((qid, system))
        judged = task is not None and task["status"] == "done"
        same_version = judged and int(task["rubric_version"]) == version
        if task is None or task["status"] not in ("done", "failed"):
            missing = NOT_JUDGED
        elif judged and not same_version:
            missing = OTHER_VERSION
        else:
            missing = FAILED
        for position, criterion in enumerate(rubric["rubric"], start=1):
            ability = criterion["dimension"]
            units.append(
                Unit(
                    response=0,
                    case=qid,
                    criterion=position,
                    ability=ability,
                    category=_category(taxonomy, ability),
                    difficulty=rubric["difficulty"],
                    scenario=scenario,
                    system=system,
                    judge=bool(task["hits"][position - 1]) if same_version else None,
                    votes=tuple(sorted(votes.get((qid, system, position), ()))),
                    no_verdict=missing,
                )
            )
    return units


def _check_evaluation(files, prefix, rubrics, taxonomy, result: Verification) -> None:
    claimed = json.loads(files[prefix + layout.REPORT_JSON])
    evaluation = json.loads(files[prefix + layout.EVALUATION])
    try:
        units = evaluation_units(files, prefix, rubrics, taxonomy)
    except (KeyError, ValueError, IndexError, TypeError) as exc:
        result.problems.append(Problem(prefix + layout.VOTES, f"cannot be read: {exc}"))
        return
    gate = claimed["gate"]
    report = agreement_report(
        units,
        threshold=gate["threshold"],
        rule=GateRule(gate["rule_name"]),
        resamples=claimed["bootstrap"]["resamples"],
        seed=claimed["bootstrap"]["seed"],
    )
    where = prefix + layout.REPORT_JSON
    source = f"{prefix}{layout.VOTES} and {prefix}{layout.EVALUATION_VERDICTS}"
    if report["units"] != claimed["units"] or report["excluded"] != claimed["excluded"]:
        result.problems.append(
            Problem(
                where,
                f"{claimed['units']} units (excluded {claimed['excluded']}) are claimed, "
                f"{report['units']} (excluded {report['excluded']}) are recomputed from {source}",
            )
        )
    for name in REPORT_NUMBERS:
        if name in claimed and not _same(claimed[name], report[name]):
            result.problems.append(
                Problem(
                    where,
                    f"{name} {claimed[name]!r} is claimed, {report[name]!r} is recomputed "
                    f"from {source}",
                )
            )
    for name in REPORT_INTERVALS:
        got, want = report.get(name) or [None, None], claimed.get(name) or [None, None]
        if not all(_same(a, b) for a, b in zip(got, want, strict=True)):
            result.problems.append(
                Problem(where, f"{name} {want!r} is claimed, {got!r} is recomputed from {source}")
            )
    for name in HUMAN_NUMBERS:
        claimed_humans, humans = claimed.get("humans", {}), report["humans"]
        if name in claimed_humans and not _same(claimed_humans[name], humans[name]):
            result.problems.append(
                Problem(where, f"the experts' {name} differs from the one recomputed from {source}")
            )
    if any(
        claimed["confusion"][k] != report["confusion"][k]
        for k in ("both_hit", "judge_only", "human_only", "both_miss")
    ):
        result.problems.append(Problem(where, "the confusion matrix differs from " + source))
    if report["gate"]["passed"] != gate["passed"] or evaluation["passed"] != gate["passed"]:
        result.problems.append(
            Problem(prefix + layout.EVALUATION, "the gate's result differs from the recomputed one")
        )
    if not _same(evaluation.get("agreement"), report["percent_agreement"]):
        result.problems.append(
            Problem(prefix + layout.EVALUATION, "the agreement differs from the recomputed one")
        )
    result.checked.append(
        f"evaluation {evaluation['id']}: agreement recomputed from {len(units)} units "
        f"({report['units']} with a majority and a verdict)"
    )


def verify_bundle(source: str | IO[bytes]) -> Verification:
    """Check the bundle at `source` (a path or a binary file)."""
    result = Verification()
    try:
        archive = zipfile.ZipFile(source)
    except (OSError, zipfile.BadZipFile) as exc:
        result.problems.append(Problem(str(source), f"not a zip file: {exc}"))
        return result
    with archive:
        files = _check_manifest(archive, result)
        if not files:
            return result
        try:
            rubrics = _rubrics(files)
            taxonomy = json.loads(files.get(layout.TAXONOMY, b"{}"))
            board = json.loads(files[layout.BOARD_JSON])
        except (KeyError, ValueError) as exc:
            result.problems.append(Problem(layout.BOARD_JSON, f"cannot be read: {exc}"))
            return result
        _check_board(files, rubrics, taxonomy, result)
        for evaluation_id in board.get("evaluations", []):
            prefix = layout.EVALUATION_DIR.format(id=evaluation_id)
            if prefix + layout.REPORT_JSON not in files:
                result.problems.append(Problem(prefix, "the evaluation's files are missing"))
                continue
            _check_evaluation(files, prefix, rubrics, taxonomy, result)
    return result
