"""The board's scores recomputed from the bundle's verdicts and rubrics (no Django)."""

import json
from collections import defaultdict

from judging.scoring import CaseVerdicts, Profile, ScoredCriterion, score_system
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import BOARD_SCORES, Verification, same

SCORE_NUMBERS = ("overall", "normal", "hard", "relative_decline")


def category(taxonomy: dict[str, str], ability: str) -> str:
    return taxonomy.get(ability, "")


def system_cases(files, rubrics, taxonomy) -> tuple[dict[str, list[CaseVerdicts]], dict]:
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
                        category=category(taxonomy, c["dimension"]),
                        weight=c["score"],
                        is_catastrophic=bool(c["catastrophic"]),
                        hit=bool(hit),
                    )
                    for c, hit in zip(criteria, row["hits"], strict=True)
                ),
            )
        )
    return cases, failed


def _check_row(row: dict, scores, failed: int, result: Verification) -> None:
    system = row["system"]
    recomputed = {
        "overall": scores.overall.value,
        "normal": scores.normal.value,
        "hard": scores.hard.value,
        "relative_decline": scores.relative_decline.value,
    }
    for name in SCORE_NUMBERS:
        if not same(row.get(name), recomputed[name]):
            result.fail(
                BOARD_SCORES,
                layout.BOARD_JSON,
                f"{system}: {name} {row.get(name)!r} is claimed, {recomputed[name]!r} is "
                f"recomputed from {layout.VERDICTS}",
            )
    claimed_abilities = row.get("abilities", {})
    for label in sorted(set(claimed_abilities) | set(scores.abilities)):
        value = scores.abilities.get(label)
        if not same(claimed_abilities.get(label), value):
            result.fail(
                BOARD_SCORES,
                layout.BOARD_JSON,
                f"{system}: ability {label} {claimed_abilities.get(label)!r} is claimed, "
                f"{value!r} is recomputed",
            )
    if row.get("cases_scored") != scores.cases_scored or row.get("cases_failed") != failed:
        result.fail(
            BOARD_SCORES,
            layout.BOARD_JSON,
            f"{system}: {row.get('cases_scored')} scored and {row.get('cases_failed')} failed "
            f"cases are claimed, {scores.cases_scored} and {failed} are in {layout.VERDICTS}",
        )


def check_board(files: dict[str, bytes], rubrics, taxonomy, result: Verification) -> None:
    board = json.loads(files[layout.BOARD_JSON])
    profile = Profile(board["profile"])
    try:
        cases, failed = system_cases(files, rubrics, taxonomy)
    except (KeyError, ValueError, TypeError) as exc:
        result.fail(BOARD_SCORES, layout.VERDICTS, f"cannot be scored: {exc}")
        return
    for row in board["rows"]:
        scores = score_system(cases.get(row["system"], []), profile)
        _check_row(row, scores, failed.get(row["system"], 0), result)
    result.ran_check(
        BOARD_SCORES,
        f"scores of {len(board['rows'])} systems recomputed from {layout.VERDICTS} "
        f"({board['profile']} profile)",
    )
    _check_board_csv(files, board, result)


def _check_board_csv(files: dict[str, bytes], board: dict, result: Verification) -> None:
    rows = {row["system"]: row for row in layout.read_csv(files.get(layout.BOARD_CSV, b""))}
    for row in board["rows"]:
        written = rows.get(row["system"])
        if written is None:
            result.fail(BOARD_SCORES, layout.BOARD_CSV, f"{row['system']} is missing")
            continue
        for name in SCORE_NUMBERS:
            value = written.get(name, "")
            if not same(row.get(name), float(value) if value else None):
                result.fail(
                    BOARD_SCORES,
                    layout.BOARD_CSV,
                    f"{row['system']}: {name} differs from {layout.BOARD_JSON}",
                )
