"""A bundle of a board judged by an LLM carries each call: the exact request (messages and
response format) and the raw reply. verify_bundle re-hashes each request as the run did and
re-reads each reply: a changed request or a reply that gives other verdicts fails the
judge_calls check."""

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.models import ReviewRound
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.simulator import start_simulator
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.gate.services.evaluation import gate_evaluate, leaderboard_publish
from leaderboard.models import GatePolicy
from tests.conftest import evidence_of
from tests.leaderboard.bundle_tools import read_files, write_files

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def judged_bundle(django_db_setup, django_db_blocker, tmp_path_factory) -> bytes:
    """The bundle of the demo board judged on the simulator, built once (the judge's lanes
    run in threads, so its rows are committed, and flushed afterwards)."""
    with django_db_blocker.unblock():
        try:
            return _judged_bundle(tmp_path_factory.mktemp("judged"))
        finally:
            call_command("flush", "--no-input")


def _judged_bundle(tmp_path) -> bytes:
    call_command("load_demo")
    round_ = ReviewRound.objects.get(name="Demo round")
    for index, expert in enumerate(round_.experts.order_by("username")):
        while (a := assignment_next(expert=expert, round_=round_)) is not None:
            votes = [
                VoteInput(c.pk, (index + c.position + a.item.response.case.position) % 3 != 0)
                for c in item_criteria(assignment=a)
            ]
            assignment_submit(
                assignment=a, votes=votes, comment="", active_seconds=30, base_revision=0
            )
    simulator = start_simulator(latency_ms=0)
    try:
        call_command(
            "judge", "--benchmark", "demo", "--round", "Demo round", "--judge", "simjudge",
            "--base-url", simulator.base_url, "--model", "concord-sim", "--json",
        )  # fmt: skip
    finally:
        simulator.stop()
    # The simulator agrees with the experts by chance: a floor of 0 lets the board publish
    # (and fails threshold_floor, as it should).
    GatePolicy.objects.update_or_create(benchmark=round_.benchmark, defaults={"threshold": 0.0})
    coordinator = get_user_model().objects.get(username="coordinator")
    gate_evaluate(evidence=evidence_of(round_, judge="simjudge"), user=coordinator)
    snapshot = leaderboard_publish(
        board=board_runs(benchmark=round_.benchmark, judge="simjudge"),
        profile="heartbench",
        user=coordinator,
    )
    path = tmp_path / "judged.zip"
    call_command("bundle", str(snapshot.pk), str(path))
    return path.read_bytes()


def checks(data: bytes) -> dict[str, str]:
    result = verify_bundle(io.BytesIO(data))
    return {c["name"]: c["result"] for c in result.as_dict()["checks"]}


def test_each_call_is_in_the_bundle_and_re_read(judged_bundle):
    calls = list(layout.read_jsonl(read_files(judged_bundle)[layout.JUDGE_CALLS]))
    assert calls and all(c["messages"] and c["raw_reply"] and c["request_hash"] for c in calls)
    assert {c["reply_form"] for c in calls} == {"concord"}
    results = checks(judged_bundle)
    assert results["judge_calls"] == "pass"
    assert results["threshold_floor"] == "fail"
    failing = {name for name, result in results.items() if result == "fail"}
    assert failing == {"threshold_floor"}


def test_a_reply_that_gives_other_verdicts_fails_judge_calls(judged_bundle):
    files = read_files(judged_bundle)
    calls = list(layout.read_jsonl(files[layout.JUDGE_CALLS]))
    reply = json.loads(calls[0]["raw_reply"])
    reply["verdicts"][0]["hit"] = not reply["verdicts"][0]["hit"]
    calls[0]["raw_reply"] = json.dumps(reply, ensure_ascii=False)
    files[layout.JUDGE_CALLS] = layout.jsonl_bytes(calls)
    assert checks(write_files(files))["judge_calls"] == "fail"


def test_a_changed_request_fails_judge_calls(judged_bundle):
    files = read_files(judged_bundle)
    calls = list(layout.read_jsonl(files[layout.JUDGE_CALLS]))
    calls[0]["messages"][0]["content"] = "Just say hit for everything."
    files[layout.JUDGE_CALLS] = layout.jsonl_bytes(calls)
    assert checks(write_files(files))["judge_calls"] == "fail"


def test_rejudging_on_the_simulator_reproduces_the_recorded_verdicts(
    judged_bundle, tmp_path, capsys
):
    path = tmp_path / "judged.zip"
    path.write_bytes(judged_bundle)
    simulator = start_simulator(latency_ms=0)
    try:
        capsys.readouterr()
        call_command("rejudge", str(path), "--base-url", simulator.base_url, "--json")
        same = json.loads(capsys.readouterr().out)
        call_command(
            "rejudge", str(path), "--base-url", simulator.base_url, "--model", "other-sim", "--json"
        )
        other = json.loads(capsys.readouterr().out)
    finally:
        simulator.stop()
    assert same["calls"] > 0 and same["failed_calls"] == 0
    assert same["agreement"] == 1.0 and same["differences_total"] == 0
    assert other["units"] == same["units"] and other["agreement"] < 1.0
