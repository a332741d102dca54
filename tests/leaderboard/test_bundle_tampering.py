"""Tampered evidence bundles, each with its manifest rewritten to match, fail verify_bundle
with their own named check: a changed judge prompt and temperature (T6), flipped votes with
the report regenerated under a threshold below the floor (T7), an edited breakdown or
sequential block (T8), items short of votes, removed gate evaluations, an edited rubric and a
renamed judge or model."""

import io
import json

import pytest
from django.core.management import call_command

from judging.judge_settings import settings_fingerprint
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.models import LeaderboardSnapshot
from tests.leaderboard.bundle_tools import (
    PREFIX,
    load,
    read_files,
    regenerate_report,
    store,
    write_files,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker, tmp_path_factory):
    """The demo's bundle, built once for the module."""
    with django_db_blocker.unblock():
        call_command("load_demo")
        snapshot = LeaderboardSnapshot.objects.get()
        path = tmp_path_factory.mktemp("bundle") / "demo.zip"
        call_command("bundle", str(snapshot.pk), str(path))
        data, gate = path.read_bytes(), snapshot.gate_id
        call_command("flush", "--no-input")
    return data, PREFIX.format(id=gate)


def failed_checks(data: bytes) -> set[str]:
    result = verify_bundle(io.BytesIO(data))
    return {check["name"] for check in result.as_dict()["checks"] if check["result"] == "fail"}


def test_the_untouched_demo_bundle_fails_no_check(demo):
    data, _ = demo
    assert failed_checks(data) == set()
    assert failed_checks(write_files(read_files(data))) == set()


def test_t6_a_changed_prompt_and_temperature_fail_the_settings_fingerprint(demo):
    data, prefix = demo
    files = read_files(data)
    for name in (layout.JUDGE_VERSION, prefix + layout.EVALUATION):
        record = load(files, name)
        version = record.get("judge_version", record)
        version["settings"]["prompt"] = {
            "name": "forged",
            "version": 1,
            "kind": "judge",
            "language": "en",
            "system_text": "Just say hit for everything",
            "user_text": "{criteria}",
        }
        version["settings"]["temperature"] = 1.3
        store(files, name, record)
    assert "settings_fingerprint" in failed_checks(write_files(files))


def test_t7_flipped_votes_under_a_lowered_threshold_fail_the_floor(demo):
    data, prefix = demo
    files = read_files(data)
    rows = layout.read_csv(files[prefix + layout.VOTES])
    units = sorted({(r["question_id"], r["system"], r["criterion"]) for r in rows})
    flipped = set(units[: round(0.16 * len(units))])
    for row in rows:
        if (row["question_id"], row["system"], row["criterion"]) in flipped:
            row["hit"] = "0" if row["hit"] == "1" else "1"
    files[prefix + layout.VOTES] = layout.csv_bytes(
        layout.VOTE_FIELDS, [[r[f] for f in layout.VOTE_FIELDS] for r in rows]
    )
    regenerate_report(files, prefix, threshold=0.65)
    failed = failed_checks(write_files(files))
    assert "threshold_floor" in failed
    # The regenerated report is consistent with its votes: only the floor gives it away.
    assert not failed & {"agreement", "breakdowns", "sequential", "gate_decision"}


def test_t8_an_edited_breakdown_fails_the_breakdowns_check(demo):
    data, prefix = demo
    files = read_files(data)
    report = load(files, prefix + layout.REPORT_JSON)
    ability = sorted(report["by_ability"])[0]
    report["by_ability"][ability]["percent_agreement"] = 0.99
    store(files, prefix + layout.REPORT_JSON, report)
    assert failed_checks(write_files(files)) == {"breakdowns"}


def test_t8_an_edited_sequential_block_fails_the_sequential_check(demo):
    data, prefix = demo
    files = read_files(data)
    report = load(files, prefix + layout.REPORT_JSON)
    report["sequential"]["decided_at"] = 3
    report["sequential"]["e_pass"] = 1000.0
    store(files, prefix + layout.REPORT_JSON, report)
    assert failed_checks(write_files(files)) == {"sequential"}


def test_items_short_of_votes_fail_raters_complete(demo):
    data, prefix = demo
    files = read_files(data)
    rows = layout.read_csv(files[prefix + layout.VOTES])
    shortened = {r["question_id"] for r in rows[:1]}
    kept = [
        r for r in rows if not (r["question_id"] in shortened and r["rater"] == rows[0]["rater"])
    ]
    files[prefix + layout.VOTES] = layout.csv_bytes(
        layout.VOTE_FIELDS, [[r[f] for f in layout.VOTE_FIELDS] for r in kept]
    )
    regenerate_report(files, prefix, threshold=0.75)
    failed = failed_checks(write_files(files))
    assert "raters_complete" in failed
    assert not failed & {"agreement", "breakdowns", "sequential", "gate_decision"}


def test_items_dropped_from_the_round_fail_the_gate_history(demo):
    data, prefix = demo
    files = read_files(data)
    rows = layout.read_csv(files[prefix + layout.ITEMS])
    dropped = {(r["question_id"], r["system"]) for r in rows[: len(rows) * 3 // 10]}
    files[prefix + layout.ITEMS] = layout.csv_bytes(
        layout.ITEM_FIELDS,
        [
            [r[f] for f in layout.ITEM_FIELDS]
            for r in rows
            if (r["question_id"], r["system"]) not in dropped
        ],
    )
    votes = layout.read_csv(files[prefix + layout.VOTES])
    files[prefix + layout.VOTES] = layout.csv_bytes(
        layout.VOTE_FIELDS,
        [
            [r[f] for f in layout.VOTE_FIELDS]
            for r in votes
            if (r["question_id"], r["system"]) not in dropped
        ],
    )
    report = load(files, prefix + layout.REPORT_JSON)
    rounds = report["gate"]["rounds"]
    regenerate_report(files, prefix, threshold=0.75)
    regenerated = load(files, prefix + layout.REPORT_JSON)
    regenerated["gate"]["rounds"] = rounds  # the history as recorded
    store(files, prefix + layout.REPORT_JSON, regenerated)
    assert "gate_history" in failed_checks(write_files(files))


def test_removed_gate_evaluations_fail_the_gate_evaluations_check(demo):
    data, prefix = demo
    files = {name: content for name, content in read_files(data).items() if prefix not in name}
    board = load(files, layout.BOARD_JSON)
    board["evaluations"] = []
    store(files, layout.BOARD_JSON, board)
    assert "gate_evaluations" in failed_checks(write_files(files))


def test_an_edited_rubric_text_fails_the_rubric_text_check(demo):
    data, _ = demo
    files = read_files(data)
    lines = list(layout.read_jsonl(files[layout.RUBRICS]))
    lines[0]["rubric"][0]["content"] = "回应中出现了至少一个问题。"
    files[layout.RUBRICS] = layout.jsonl_bytes(lines)
    assert failed_checks(write_files(files)) == {"rubric_text"}


def test_a_renamed_judge_fails_the_judge_identity_check(demo):
    data, _ = demo
    files = read_files(data)
    version = load(files, layout.JUDGE_VERSION)
    version["config"] = "GPT-9 judge"
    store(files, layout.JUDGE_VERSION, version)
    board = load(files, layout.BOARD_JSON)
    board["judge_version"] = f"GPT-9 judge v{version['number']}"
    store(files, layout.BOARD_JSON, board)
    assert failed_checks(write_files(files)) == {"judge_identity"}


def test_a_changed_model_fails_the_judge_identity_check(demo):
    data, _ = demo
    files = read_files(data)
    version = load(files, layout.JUDGE_VERSION)
    version["settings"]["model"] = "gpt-9"
    version["fingerprint"] = settings_fingerprint(version["settings"])
    store(files, layout.JUDGE_VERSION, version)
    assert failed_checks(write_files(files)) == {"judge_identity"}


def test_checks_are_named_with_pass_or_fail_in_json(demo, tmp_path, capsys):
    data, _ = demo
    path = tmp_path / "demo.zip"
    path.write_bytes(data)
    call_command("verify_bundle", str(path), "--json")
    out = json.loads(capsys.readouterr().out)
    results = {check["name"]: check["result"] for check in out["checks"]}
    assert results["threshold_floor"] == "pass" and results["raters_complete"] == "pass"
    assert results["signature"] == "skipped"


def test_the_verifier_floor_is_the_policy_minimum():
    from leaderboard.exports.bundles.verify_provenance import THRESHOLD_FLOOR_VALUE
    from leaderboard.gate.services.policy_edit import MINIMUM_THRESHOLD

    assert THRESHOLD_FLOOR_VALUE == MINIMUM_THRESHOLD
