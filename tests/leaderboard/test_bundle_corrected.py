"""A board published with a correcting round carries its corrected board in the bundle, with
what it is recomputed from (the round's items and their inclusion probabilities, its votes
at publication, its frame, the weights used); `verify_bundle` recomputes it with the
project's own statistics, and an edited number fails `corrected_scores`, naming the system
and the quantity. A board published without one skips the check, saying why."""

import io
import random

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.models import Benchmark, ReviewRound
from annotation.services.votes_import import votes_import
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.boards.selectors.scores import board_case_verdicts
from leaderboard.corrected.board import corrected_board
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.build import bundle_write
from leaderboard.exports.bundles.checks import same_tree
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.gate.services.evaluation import leaderboard_publish
from leaderboard.management.commands.load_demo import DEMO_JUDGE
from leaderboard.models import LeaderboardSnapshot
from tests.conftest import lines
from tests.leaderboard.bundle_tools import load, read_files, store, write_files

ROUND = "校正轮"


def _correcting_round(board) -> None:
    """A round whose three raters rated 12 of each system's responses, mostly as the judge
    did; a 13th response per system is rated by two raters only, so it is not labelled."""
    judged, _failed = board_case_verdicts(board=board)
    rng = random.Random(33)
    rows = ["rater,question_id,system,criterion,hit"]
    for system, cases in sorted(judged.items()):
        for index, case in enumerate(sorted(cases, key=lambda c: c.case_id)[:13]):
            verdicts = [c.hit if rng.random() < 0.8 else not c.hit for c in case.criteria]
            for rater in ("r1", "r2") if index == 12 else ("r1", "r2", "r3"):
                for position, hit in enumerate(verdicts, start=1):
                    vote = hit if rater != "r3" else rng.random() < 0.5
                    rows.append(f"{rater},{case.case_id},{system},{position},{int(vote)}")
    votes_import(
        chunks=lines(("\n".join(rows) + "\n").encode()), round_name=ROUND, benchmark_slug="demo"
    )


@pytest.fixture(scope="module")
def corrected_bundle(django_db_setup, django_db_blocker):
    """The demo board published again, corrected by a round of its own; its bundle, the
    site's corrected board of the same board and round, and the plain demo board's bundle."""
    with django_db_blocker.unblock():
        call_command("load_demo")
        benchmark = Benchmark.objects.get(slug="demo")
        board = board_runs(benchmark=benchmark, judge=DEMO_JUDGE)
        _correcting_round(board)
        round_ = ReviewRound.objects.get(name=ROUND)
        snapshot = leaderboard_publish(
            board=board,
            profile="heartbench",
            user=get_user_model().objects.get(username="coordinator"),
            corrected_by=round_,
        )
        site = corrected_board(board=board, round_=round_, profile="heartbench")
        out, plain = io.BytesIO(), io.BytesIO()
        bundle_write(snapshot, out)
        bundle_write(LeaderboardSnapshot.objects.exclude(pk=snapshot.pk).get(), plain)
        call_command("flush", "--no-input")
    return out.getvalue(), site, plain.getvalue()


def checks(blob: bytes) -> tuple[dict, list]:
    found = verify_bundle(io.BytesIO(blob)).as_dict()
    return {c["name"]: c for c in found["checks"]}, found["problems"]


@pytest.mark.django_db
def test_the_bundle_carries_the_sites_corrected_board_and_verifies(corrected_bundle):
    blob, site, _plain = corrected_bundle
    files = read_files(blob)
    record = load(files, layout.CORRECTED)
    # The bundle's board, recomputed from its own files, is the one the site shows.
    for key in ("rows", "ranks", "bias_test"):
        assert same_tree(record[key], site[key]), key
    for key in ("sampled_responses", "labelled_responses", "not_labelled", "sampling"):
        assert record["corrected_by"][key] == site["corrected_by"][key]
    assert record["corrected_by"]["labelled_responses"] > 0
    assert record["rows"][0]["overall"]["corrected"] is not None
    assert load(files, layout.BOARD_JSON)["corrected_by"] == ROUND
    for name in (layout.CORRECTED_ITEMS, layout.CORRECTED_VOTES, layout.CORRECTED_FRAME):
        assert layout.read_csv(files[name])
    weights = layout.read_csv(files[layout.CORRECTED_WEIGHTS])
    assert (
        sum(int(row["labelled"]) for row in weights) == site["corrected_by"]["labelled_responses"]
    )
    found, problems = checks(blob)
    assert found["corrected_scores"]["result"] == "pass", problems
    assert not problems


def _edited(blob: bytes, edit) -> tuple[dict, list]:
    files = read_files(blob)
    record = load(files, layout.CORRECTED)
    edit(record)
    store(files, layout.CORRECTED, record)
    return checks(write_files(files))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "quantity"),
    [
        (("overall", "corrected"), "overall corrected"),
        (("overall", "ci_high"), "overall ci_high"),
        (("overall", "labelled"), "overall labelled"),
    ],
)
def test_an_edited_corrected_number_fails_naming_the_system_and_quantity(
    corrected_bundle, path, quantity
):
    blob, _site, _plain = corrected_bundle
    record = load(read_files(blob), layout.CORRECTED)
    system = record["rows"][-1]["system"]

    def edit(record):
        entry = record["rows"][-1][path[0]]
        entry[path[1]] = entry[path[1]] + (1 if path[1] == "labelled" else 0.5)

    found, problems = _edited(blob, edit)
    assert found["corrected_scores"]["result"] == "fail"
    messages = [p["message"] for p in problems if p["check"] == "corrected_scores"]
    assert any(m.startswith(f"{system}: {quantity} ") for m in messages), messages
    # Only the corrected board was touched: nothing else fails.
    assert {p["check"] for p in problems} == {"corrected_scores"}


@pytest.mark.django_db
def test_an_edited_ability_score_and_an_edited_vote_fail(corrected_bundle):
    blob, _site, _plain = corrected_bundle
    record = load(read_files(blob), layout.CORRECTED)
    ability = next(
        label
        for label, entry in record["rows"][0]["abilities"].items()
        if entry["bias_ci_low"] is not None
    )

    def edit(record):
        record["rows"][0]["abilities"][ability]["bias_ci_low"] -= 0.25

    found, problems = _edited(blob, edit)
    assert found["corrected_scores"]["result"] == "fail"
    assert any(f"abilities {ability} bias_ci_low" in p["message"] for p in problems)
    # A vote flipped (the manifest rewritten) changes the recomputed board.
    files = read_files(blob)
    votes = layout.read_csv(files[layout.CORRECTED_VOTES])
    for row in votes[: len(votes) // 3]:
        row["hit"] = "0" if row["hit"] == "1" else "1"
    files[layout.CORRECTED_VOTES] = layout.csv_bytes(
        layout.VOTE_FIELDS, [[r[f] for f in layout.VOTE_FIELDS] for r in votes]
    )
    found, _problems = checks(write_files(files))
    assert found["corrected_scores"]["result"] == "fail"


@pytest.mark.django_db
def test_a_board_without_a_correcting_round_skips_the_check_with_its_reason(corrected_bundle):
    _blob, _site, plain = corrected_bundle
    found, problems = checks(plain)
    assert not problems
    assert found["corrected_scores"]["result"] == "skipped"
    assert "published without a correcting round" in found["corrected_scores"]["reason"]
    # Claiming a correcting round without the corrected board fails.
    files = read_files(plain)
    board = load(files, layout.BOARD_JSON)
    board["corrected_by"] = ROUND
    store(files, layout.BOARD_JSON, board)
    found, _problems = checks(write_files(files))
    assert found["corrected_scores"]["result"] == "fail"
