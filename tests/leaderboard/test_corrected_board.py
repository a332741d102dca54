"""Leaderboards corrected by a review round's votes, read from the database: the command's
JSON equals ppi_py on the per-response arrays for the overall score and every ability, in
both profiles; which responses count as labelled; bad input."""

import json
import random

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotation.models import Benchmark, ReviewRound
from annotation.services.votes_import import votes_import
from judging.scoring import CaseVerdicts, Profile, ScoredCriterion, score_case
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.boards.selectors.scores import board_case_verdicts
from leaderboard.management.commands.load_demo import DEMO_JUDGE
from tests.conftest import lines

ppi_py = pytest.importorskip("ppi_py")

ROUND = "校正轮"
LABELLED_CASES = 10  # per system; one more case per system is rated by two raters only


@pytest.fixture(scope="module")
def built(demo_loaded):
    return _build()


@pytest.fixture
def world(built, db):
    return built


def _build() -> dict:
    """The demo's judge board, and a round whose experts rated 11 of each system's 14
    responses: 10 by three raters, one by two (so not labelled)."""
    benchmark = Benchmark.objects.get(slug="demo")
    board = board_runs(benchmark=benchmark, judge=DEMO_JUDGE)
    judged, _failed = board_case_verdicts(board=board)
    rng = random.Random(29)
    truth: dict[tuple[str, str], list[bool]] = {}
    rows = ["rater,question_id,system,criterion,hit"]
    for system, cases in sorted(judged.items()):
        for index, case in enumerate(sorted(cases, key=lambda c: c.case_id)):
            if index > LABELLED_CASES:
                break
            verdicts = [c.hit if rng.random() < 0.8 else not c.hit for c in case.criteria]
            raters = ("r1", "r2") if index == LABELLED_CASES else ("r1", "r2", "r3")
            if index < LABELLED_CASES:
                truth[(system, case.case_id)] = verdicts
            for rater in raters:
                for position, hit in enumerate(verdicts, start=1):
                    vote = hit if rater != "r3" else rng.random() < 0.5
                    rows.append(f"{rater},{case.case_id},{system},{position},{int(vote)}")
    votes_import(
        chunks=lines(("\n".join(rows) + "\n").encode()), round_name=ROUND, benchmark_slug="demo"
    )
    return {"board": board, "judged": judged, "truth": truth}


def _command(capsys, *extra) -> dict:
    call_command(
        "leaderboard",
        "--benchmark",
        "demo",
        "--judge",
        DEMO_JUDGE,
        "--corrected-by",
        ROUND,
        "--json",
        *extra,
    )
    return json.loads(capsys.readouterr().out)


def _experts_case(case: CaseVerdicts, hits: list[bool]) -> CaseVerdicts:
    return CaseVerdicts(
        case_id=case.case_id,
        difficulty=case.difficulty,
        scenario=case.scenario,
        criteria=tuple(
            ScoredCriterion(
                ability=c.ability,
                category=c.category,
                weight=c.weight,
                is_catastrophic=c.is_catastrophic,
                hit=hit,
            )
            for c, hit in zip(case.criteria, hits, strict=True)
        ),
    )


def _reference(world, system: str, profile: str) -> dict:
    """ppi_py's estimate and interval for the overall score and every ability, from arrays
    built here by the scorer and the definitions of the issue."""
    cases = world["judged"][system]
    judge = {c.case_id: score_case(c, profile) for c in cases}
    experts = {
        c.case_id: score_case(_experts_case(c, world["truth"][(system, c.case_id)]), profile)
        for c in cases
        if (system, c.case_id) in world["truth"]
    }
    n_d: dict[str, int] = {}
    for scores in judge.values():
        for label in scores.abilities:
            n_d[label] = n_d.get(label, 0) + 1

    def psi(scores) -> float:
        return sum(s * len(cases) / (len(n_d) * n_d[d]) for d, s in scores.abilities.items())

    out = {}
    targets = {"overall": (psi, lambda _s: True)}
    for label in n_d:
        targets[label] = (
            lambda s, label=label: s.abilities[label],
            lambda s, label=label: label in s.abilities,
        )
    for name, (value, present) in targets.items():
        ids = [cid for cid in judge if present(judge[cid])]
        y = np.array([value(experts[cid]) for cid in ids if cid in experts])
        yhat = np.array([value(judge[cid]) for cid in ids if cid in experts])
        yhat_u = np.array([value(judge[cid]) for cid in ids if cid not in experts])
        if len(y) < 10 or not len(yhat_u):
            out[name] = None
            continue
        point = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u)
        low, high = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05)
        out[name] = (float(point[0]), float(low[0]), float(high[0]), len(y))
    return out


@pytest.mark.parametrize("profile", [p.value for p in Profile])
def test_corrected_scores_equal_ppi_py_for_overall_and_every_ability(world, capsys, profile):
    payload = _command(capsys, "--profile", profile)
    assert payload["corrected_by"]["round"] == ROUND
    assert payload["corrected_by"]["labelled_responses"] == 3 * LABELLED_CASES
    checked = 0
    for row in payload["rows"]:
        reference = _reference(world, row["system"], profile)
        entries = {"overall": row["overall"], **row["abilities"]}
        assert set(entries) == set(reference)
        for name, entry in entries.items():
            if reference[name] is None:
                assert entry["corrected"] is None and entry["reason"]
                continue
            point, low, high, n = reference[name]
            assert entry["corrected"] == pytest.approx(point, abs=1e-9, rel=0)
            assert entry["ci_low"] == pytest.approx(low, abs=1e-9, rel=0)
            assert entry["ci_high"] == pytest.approx(high, abs=1e-9, rel=0)
            assert entry["labelled"] == n
            assert entry["bias"] == pytest.approx(entry["judge"] - point, abs=1e-9)
            assert 0.0 <= entry["lambda"] <= 1.0
            checked += 1
    assert checked >= 3  # at least every system's overall score


def test_the_command_prints_the_issues_shape(world, capsys):
    payload = _command(capsys)
    keys = {
        "judge",
        "corrected",
        "ci_low",
        "ci_high",
        "bias",
        "bias_ci_low",
        "bias_ci_high",
        "labelled",
        "lambda",
        "effective_n",
    }
    assert {"round", "labelled_responses"} <= set(payload["corrected_by"])
    for row in payload["rows"]:
        assert keys <= set(row["overall"])
        assert all(keys <= set(entry) for entry in row["abilities"].values())
        assert {"system", "rank_low", "rank_high"} <= set(row)
        assert 1 <= row["rank_low"] <= row["rank_high"] <= len(payload["rows"])
    assert {"p_value", "largest"} <= set(payload["bias_test"])
    assert payload["bias_test"]["largest"]["system"] in {r["system"] for r in payload["rows"]}
    # Full precision: the numbers are not rounded.
    assert any(len(repr(row["overall"]["corrected"])) > 8 for row in payload["rows"])


def test_a_response_rated_by_fewer_than_the_rounds_raters_is_not_labelled(world, capsys):
    payload = _command(capsys)
    round_ = ReviewRound.objects.get(name=ROUND)
    assert round_.raters_per_item == 3
    assert payload["corrected_by"]["sampled_responses"] == 3 * (LABELLED_CASES + 1)
    assert payload["corrected_by"]["not_labelled"] == {"incomplete": 3}


def test_the_judge_score_is_the_boards_own(world, capsys):
    payload = _command(capsys)
    call_command("leaderboard", "--benchmark", "demo", "--judge", DEMO_JUDGE, "--json")
    plain = {row["system"]: row for row in json.loads(capsys.readouterr().out)["systems"]}
    for row in payload["rows"]:
        assert row["overall"]["judge"] == pytest.approx(plain[row["system"]]["overall"], abs=1e-9)


def test_an_unknown_round_is_refused_with_its_name(world):
    with pytest.raises(CommandError, match="no review round 'nope'"):
        call_command(
            "leaderboard", "--benchmark", "demo", "--judge", DEMO_JUDGE, "--corrected-by", "nope"
        )


def test_the_table_reads_the_corrected_scores(world, capsys):
    call_command(
        "leaderboard", "--benchmark", "demo", "--judge", DEMO_JUDGE, "--corrected-by", ROUND
    )
    out = capsys.readouterr().out
    assert "corrected by round '校正轮': 30 labelled of 33 sampled responses" in out
    assert "equal-bias test: p = " in out
