"""What the numbers rest on, checked from the bundle alone (no Django): the board's gate
evaluations are all there, the judge's settings hash to its fingerprint and name one judge
everywhere, the rubrics are the ones the evaluations recorded, and each evaluation's
threshold and rule respect the 75% floor and the benchmark's policy as recorded."""

import json

from judging.judge_settings import settings_fingerprint
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import (
    GATE_EVALUATIONS,
    GATE_POLICY,
    JUDGE_IDENTITY,
    RUBRIC_TEXT,
    SETTINGS_FINGERPRINT,
    THRESHOLD_FLOOR,
    Verification,
    same,
)
from leaderboard.stats.threshold import AGREEMENT_GATE

# The product's promise: a judge agrees with the experts at least this often. No policy may
# be looser.
THRESHOLD_FLOOR_VALUE = AGREEMENT_GATE
EVALUATION_FILES = (
    layout.EVALUATION,
    layout.REPORT_JSON,
    layout.ITEMS,
    layout.VOTES,
    layout.EVALUATION_VERDICTS,
)


def evaluation_ids(board: dict) -> list:
    """The evaluations a board's bundle carries: those it rests on, then any others of the
    judge version's history (`gate_history`), each under evaluations/<id>/."""
    ids = list(board.get("evaluations") or [])
    return ids + [e for e in board.get("gate_history") or [] if e not in ids]


def check_gate_evaluations(files: dict[str, bytes], board: dict, result: Verification) -> list:
    """The evaluations whose files are all there, in order."""
    ids = evaluation_ids(board)
    if not board.get("evaluations"):
        result.fail(
            GATE_EVALUATIONS,
            layout.BOARD_JSON,
            "the board names no gate evaluation: a published board rests on one",
        )
    present = []
    for evaluation_id in ids:
        prefix = layout.EVALUATION_DIR.format(id=evaluation_id)
        missing = [name for name in EVALUATION_FILES if prefix + name not in files]
        if missing:
            result.fail(
                GATE_EVALUATIONS,
                prefix,
                f"the evaluation's files are missing: {', '.join(missing)}",
            )
            continue
        recorded = json.loads(files[prefix + layout.EVALUATION])
        if recorded.get("id") != evaluation_id:
            result.fail(
                GATE_EVALUATIONS,
                prefix + layout.EVALUATION,
                f"holds evaluation {recorded.get('id')!r}, not {evaluation_id!r}",
            )
            continue
        present.append(evaluation_id)
    result.ran_check(GATE_EVALUATIONS, f"{len(present)} gate evaluations present")
    return present


def _versions(files: dict[str, bytes], evaluations: list) -> list[tuple[str, dict]]:
    found = [(layout.JUDGE_VERSION, json.loads(files[layout.JUDGE_VERSION]))]
    for evaluation_id in evaluations:
        name = layout.EVALUATION_DIR.format(id=evaluation_id) + layout.EVALUATION
        found.append((name, json.loads(files[name]).get("judge_version") or {}))
    return found


def check_settings(files, board: dict, evaluations: list, result: Verification) -> None:
    """Each judge version's settings hash to its fingerprint, and the board, its judge
    version and the evaluations it rests on name one judge: name, number, fingerprint and
    model."""
    versions = _versions(files, evaluations)
    for name, version in versions:
        settings = version.get("settings")
        if not isinstance(settings, dict) or settings_fingerprint(settings) != version.get(
            "fingerprint"
        ):
            result.fail(
                SETTINGS_FINGERPRINT,
                name,
                "the judge's settings do not hash to its fingerprint "
                f"{version.get('fingerprint')!r}: a setting (prompt, model, temperature…) "
                "was changed",
            )
    result.ran_check(SETTINGS_FINGERPRINT, f"settings fingerprints of {len(versions)} records")
    _, board_version = versions[0]
    label = f"{board_version.get('config')} v{board_version.get('number')}"
    if board.get("judge_version") != label:
        result.fail(
            JUDGE_IDENTITY,
            layout.BOARD_JSON,
            f"names the judge {board.get('judge_version')!r}, {layout.JUDGE_VERSION} {label!r}",
        )
    for name, version in versions[1:]:
        for key in ("config", "number", "fingerprint"):
            if version.get(key) != board_version.get(key):
                result.fail(
                    JUDGE_IDENTITY,
                    name,
                    f"the judge's {key} is {version.get(key)!r}, {layout.JUDGE_VERSION} says "
                    f"{board_version.get(key)!r}",
                )
        model = (version.get("settings") or {}).get("model")
        if model != (board_version.get("settings") or {}).get("model"):
            result.fail(
                JUDGE_IDENTITY, name, f"the judge's model is {model!r}, not the board's judge's"
            )
    result.ran_check(JUDGE_IDENTITY, f"the judge {label} named alike in {len(versions)} records")


def check_rubrics(files, rubrics: dict, board: dict, evaluations: list, result: Verification):
    """Every rubric version hashes to the digest the board and each evaluation recorded."""
    records = [(layout.BOARD_JSON, board)] + [
        (name, json.loads(files[name]))
        for name in (layout.EVALUATION_DIR.format(id=e) + layout.EVALUATION for e in evaluations)
    ]
    checked = 0
    for name, record in records:
        digests = record.get("rubric_digests")
        if not isinstance(digests, dict):
            result.fail(RUBRIC_TEXT, name, "records no rubric digests")
            continue
        for key, digest in sorted(digests.items()):
            qid, _, number = key.rpartition("@")
            line = rubrics.get(layout.rubric_key(qid, number)) if number.isdigit() else None
            if line is None:
                result.fail(RUBRIC_TEXT, layout.RUBRICS, f"{key} is missing")
            elif layout.rubric_digest(line) != digest:
                result.fail(
                    RUBRIC_TEXT,
                    layout.RUBRICS,
                    f"{key}: the rubric (criteria, dialogue or labels) differs from the one "
                    f"{name} recorded",
                )
            checked += 1
    result.ran_check(RUBRIC_TEXT, f"{checked} rubric digests")


def check_policy(files, board: dict, evaluations: list, result: Verification) -> None:
    """Each evaluation's threshold is at least the floor and its recorded policy's; its rule
    and threshold are the same in its record and its report."""
    policy = board.get("gate_policy")
    if not isinstance(policy, dict) or not isinstance(policy.get("threshold"), int | float):
        result.fail(GATE_POLICY, layout.BOARD_JSON, "the benchmark's gate policy is not recorded")
        policy = None
    elif policy["threshold"] < THRESHOLD_FLOOR_VALUE:
        result.fail(
            THRESHOLD_FLOOR,
            layout.BOARD_JSON,
            f"the policy's threshold {policy['threshold']} is below the floor of "
            f"{THRESHOLD_FLOOR_VALUE}",
        )
    for evaluation_id in evaluations:
        prefix = layout.EVALUATION_DIR.format(id=evaluation_id)
        record = json.loads(files[prefix + layout.EVALUATION])
        gate = json.loads(files[prefix + layout.REPORT_JSON]).get("gate") or {}
        thresholds = [t for t in (record.get("threshold"), gate.get("threshold")) if t is not None]
        low = [t for t in thresholds if not isinstance(t, int | float) or t < THRESHOLD_FLOOR_VALUE]
        if low or not thresholds:
            result.fail(
                THRESHOLD_FLOOR,
                prefix + layout.REPORT_JSON,
                f"the gate's threshold {low[0] if low else None!r} is below the floor of "
                f"{THRESHOLD_FLOOR_VALUE}",
            )
        if not same(record.get("threshold"), gate.get("threshold")) or record.get(
            "rule"
        ) != gate.get("rule_name"):
            result.fail(
                GATE_POLICY,
                prefix + layout.EVALUATION,
                f"the evaluation records {record.get('rule')!r} at {record.get('threshold')!r}, "
                f"its report {gate.get('rule_name')!r} at {gate.get('threshold')!r}",
            )
        numbers = [t for t in thresholds if isinstance(t, int | float)]
        # An earlier evaluation of the history may rest on an earlier policy; the board's
        # own must meet the policy in force when it was published.
        deciding = evaluation_id in (board.get("evaluations") or [])
        if deciding and policy is not None and numbers and min(numbers) < policy["threshold"]:
            result.fail(
                GATE_POLICY,
                prefix + layout.EVALUATION,
                f"the threshold {min(numbers)} is below the benchmark's policy "
                f"({policy['threshold']}) as recorded",
            )
    result.ran_check(THRESHOLD_FLOOR, f"thresholds at or above {THRESHOLD_FLOOR_VALUE}")
    result.ran_check(GATE_POLICY, f"rules and thresholds of {len(evaluations)} evaluations")
