"""`bundle --lean` leaves out the large re-judging material (the response texts, the exact
messages sent to the judge and its raw replies), says so in the manifest, and still checks
out on everything else; a full bundle with that material removed does not."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.citation import bundle_hash
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.models import LeaderboardSnapshot
from tests.conftest import rolled_back
from tests.leaderboard.bundle_tools import PREFIX, read_files, write_files

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def bundles(django_db_setup, django_db_blocker, tmp_path_factory):
    """The demo board's full and lean bundles, built once: (the evaluation's id, the hash a
    paper cites, the full bundle's path, the lean one's)."""
    folder = tmp_path_factory.mktemp("bundles")
    with rolled_back(django_db_blocker):
        call_command("load_demo")
        snapshot = LeaderboardSnapshot.objects.get()
        full, lean = folder / "full.zip", folder / "lean.zip"
        call_command("bundle", str(snapshot.pk), str(full))
        call_command("bundle", str(snapshot.pk), str(lean), "--lean")
        return snapshot.gate_id, bundle_hash(snapshot), full, lean


def _checks(data: bytes) -> dict[str, dict]:
    return {c["name"]: c for c in verify_bundle(io.BytesIO(data)).as_dict()["checks"]}


def test_a_lean_bundle_says_what_it_leaves_out_and_checks_everything_else(bundles):
    _, cited, full, lean = bundles
    files = read_files(lean.read_bytes())
    assert layout.RESPONSES not in files and layout.JUDGE_CALLS not in files
    manifest = json.loads(files[layout.MANIFEST])
    assert manifest["lean"] is True
    left_out = " ".join(manifest["left_out"])
    assert "response texts" in left_out and "raw replies" in left_out and "--lean" in left_out
    full_manifest = json.loads(read_files(full.read_bytes())[layout.MANIFEST])
    assert not full_manifest.get("lean") and "--lean" not in " ".join(full_manifest["left_out"])

    result = verify_bundle(io.BytesIO(lean.read_bytes()))
    assert result.ok, result.problems
    checks = _checks(lean.read_bytes())
    assert checks["judge_calls"]["result"] == "skipped"
    assert "lean" in checks["judge_calls"]["reason"]
    passed = {name for name, c in _checks(full.read_bytes()).items() if c["result"] == "pass"}
    assert {name for name, c in checks.items() if c["result"] == "pass"} == passed - {"judge_calls"}
    # The hash a paper cites stays the full bundle's.
    assert cited == full_manifest["bundle_sha256"]


def test_a_lean_bundle_still_catches_a_changed_vote(bundles):
    gate_id, _, _, lean = bundles
    files = read_files(lean.read_bytes())
    votes = PREFIX.format(id=gate_id) + layout.VOTES
    rows = files[votes].decode().splitlines()
    last = rows[1].rsplit(",", 1)
    rows[1] = last[0] + "," + ("0" if last[1] == "1" else "1")
    files[votes] = ("\n".join(rows) + "\n").encode()
    failed = {n for n, c in _checks(write_files(files)).items() if c["result"] == "fail"}
    assert "agreement" in failed


def test_the_judge_calls_removed_from_a_full_bundle_fail_their_check(bundles):
    _, _, full, _ = bundles
    files = read_files(full.read_bytes())
    del files[layout.JUDGE_CALLS]
    checks = _checks(write_files(files))
    assert checks["judge_calls"]["result"] == "fail"
    # Claiming leanness without saying so in what was left out does not pass either.
    manifest = json.loads(files[layout.MANIFEST])
    manifest["lean"] = True
    files[layout.MANIFEST] = json.dumps(manifest).encode()
    assert _checks(write_files(files))["judge_calls"]["result"] == "fail"


def test_re_judging_a_lean_bundle_is_refused_with_the_reason(bundles):
    _, _, _, lean = bundles
    with pytest.raises(CommandError, match="lean"):
        call_command("rejudge", str(lean), "--base-url", "http://127.0.0.1:9/v1")
