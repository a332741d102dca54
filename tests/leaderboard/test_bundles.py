"""The demo's published leaderboard downloads as an evidence bundle that checks out from the
bundle alone; one vote or one verdict changed inside it is caught, and the file named."""

import csv
import hashlib
import io
import json
import zipfile

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from leaderboard.exports.bundles.layout import content_sha256
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.models import LeaderboardSnapshot
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def bundle(demo_loaded, tmp_path) -> tuple[LeaderboardSnapshot, bytes]:
    snapshot = LeaderboardSnapshot.objects.get()
    path = tmp_path / "demo.zip"
    call_command("bundle", str(snapshot.pk), str(path))
    return snapshot, path.read_bytes()


def rewrite(data: bytes, name: str, change, *, update_manifest: bool = False) -> bytes:
    """The bundle with one file changed (and, if asked, the manifest made to match)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    files = {item: source.read(item) for item in source.namelist()}
    files[name] = change(files[name])
    if update_manifest:
        manifest = json.loads(files["manifest.json"])
        manifest["files"][name]["sha256"] = hashlib.sha256(files[name]).hexdigest()
        manifest["bundle_sha256"] = content_sha256(manifest["files"])
        files["manifest.json"] = json.dumps(manifest).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for item, content in files.items():
            target.writestr(item, content)
    return out.getvalue()


def flip_first_vote(content: bytes) -> bytes:
    rows = list(csv.reader(io.StringIO(content.decode())))
    rows[1][-1] = "0" if rows[1][-1] == "1" else "1"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


def flip_first_verdict(content: bytes) -> bytes:
    lines = content.decode().splitlines()
    first = json.loads(lines[0])
    first["hits"][0] = 1 - first["hits"][0]
    lines[0] = json.dumps(first, ensure_ascii=False, sort_keys=True)
    return ("\n".join(lines) + "\n").encode()


def test_the_demo_bundle_holds_what_it_claims(bundle, tmp_path, capsys):
    snapshot, data = bundle
    names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
    prefix = f"evaluations/{snapshot.gate_id}/"
    assert {
        "manifest.json",
        "board.json",
        "board.csv",
        "judge_version.json",
        "rubrics.jsonl",
        "taxonomy.json",
        "verdicts.jsonl",
        "responses.jsonl",
        "runs.json",
        "judge_calls.jsonl",
        "guidance.json",
        "calibration.json",
        "signature.json",
        *(prefix + f for f in ("evaluation.json", "report.json", "report.pdf")),
        *(prefix + f for f in ("items.csv", "votes.csv", "verdicts.jsonl", "frame.csv")),
    } == names
    result = verify_bundle(io.BytesIO(data))
    assert result.ok, result.problems
    assert {check["name"] for check in result.as_dict()["checks"] if check["result"] == "pass"} >= {
        "files",
        "gate_evaluations",
        "settings_fingerprint",
        "judge_identity",
        "rubric_text",
        "board_scores",
        "threshold_floor",
        "gate_policy",
        "agreement",
        "breakdowns",
        "raters_complete",
        "sample",
        "sequential",
        "gate_history",
        "gate_decision",
        "guidance",
        "calibration",
    }
    path = tmp_path / "b.zip"
    path.write_bytes(data)
    capsys.readouterr()
    call_command("verify_bundle", str(path), "--json")
    assert json.loads(capsys.readouterr().out)["ok"] is True
    runs = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("runs.json"))["runs"]
    assert runs and all(run["abandoned_calls"] == [] for run in runs)  # imported: no calls
    board = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("board.json"))
    assert board["rows"] == snapshot.rows  # at full precision


def test_a_changed_vote_fails_and_names_the_file(bundle):
    snapshot, data = bundle
    votes = f"evaluations/{snapshot.gate_id}/votes.csv"
    result = verify_bundle(io.BytesIO(rewrite(data, votes, flip_first_vote)))
    assert not result.ok and votes in {p.file for p in result.problems}
    # With the manifest made to match, the recomputed agreement still gives it away.
    forged = rewrite(data, votes, flip_first_vote, update_manifest=True)
    result = verify_bundle(io.BytesIO(forged))
    assert not result.ok
    assert f"evaluations/{snapshot.gate_id}/report.json" in {p.file for p in result.problems}
    assert any(votes in p.message for p in result.problems)


def test_a_changed_verdict_fails_and_names_the_file(bundle, tmp_path):
    _, data = bundle
    changed = rewrite(data, "verdicts.jsonl", flip_first_verdict)
    result = verify_bundle(io.BytesIO(changed))
    assert not result.ok and "verdicts.jsonl" in {p.file for p in result.problems}
    forged = rewrite(data, "verdicts.jsonl", flip_first_verdict, update_manifest=True)
    result = verify_bundle(io.BytesIO(forged))
    assert [p.file for p in result.problems] and {p.file for p in result.problems} == {"board.json"}
    path = tmp_path / "forged.zip"
    path.write_bytes(forged)
    with pytest.raises(CommandError, match=r"board\.json"):
        call_command("verify_bundle", str(path))


def test_the_bundle_downloads_from_the_page_and_the_api(bundle, researcher, expert):
    snapshot, _ = bundle
    page = client_for(researcher).get(reverse("leaderboard-bundle", args=["demo", snapshot.pk]))
    assert page.status_code == 200 and page["Content-Type"] == "application/zip"
    data = b"".join(page.streaming_content)
    assert verify_bundle(io.BytesIO(data)).ok
    api = client_for(researcher).get(reverse("api-leaderboard-bundle", args=["demo", snapshot.pk]))
    assert api.status_code == 200
    assert (
        client_for(expert)
        .get(reverse("leaderboard-bundle", args=["demo", snapshot.pk]))
        .status_code
        == 403
    )
    listed = client_for(researcher).get(reverse("leaderboard-snapshot", args=["demo", snapshot.pk]))
    assert 'id="bundle-link"' in listed.content.decode()


def test_a_file_that_is_not_a_bundle_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "not.zip"
    path.write_bytes(b"hello")
    result = verify_bundle(str(path))
    assert not result.ok and "not a zip file" in result.problems[0].message
