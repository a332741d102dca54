"""The gate's bias condition: a judge lenient with one system beyond the policy's points is
refused publication, and the refusal names that system, in both languages."""

import pytest
from django.urls import reverse
from django.utils import translation

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, System
from annotation.selectors.review import item_criteria
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.services.judgments_import import judgments_import
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.corrected.board import corrected_board
from leaderboard.models import GatePolicy, LeaderboardSnapshot
from tests.conftest import jsonl_bytes, lines, question
from tests.leaderboard.test_gate_integrity import api, record

pytestmark = pytest.mark.django_db

CASES = [f"c{i:03d}" for i in range(120)]
FAIR, FLATTERED = "公平系统", "被偏袒系统"


def _world():
    benchmark_import(chunks=lines(jsonl_bytes([question(q) for q in CASES])), benchmark_slug="gi")
    for system in (FAIR, FLATTERED):
        responses_import(
            chunks=lines(jsonl_bytes([{"question_id": q, "response": system} for q in CASES])),
            benchmark_slug="gi",
            system_name=system,
        )
        # The judge calls the first two criteria met and the penalty and catastrophic ones
        # not met, for both systems alike.
        judgments_import(
            chunks=lines(
                jsonl_bytes([{"question_id": q, "score_detail": [1, 1, 0, 0]} for q in CASES])
            ),
            benchmark_slug="gi",
            system_name=system,
            judge_name="judge",
        )
    experts = [
        user_create_with_role(username=f"bias-e{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    round_ = round_open(
        benchmark=Benchmark.objects.get(slug="gi"),
        name="A",
        systems=list(System.objects.all()),
        experts=experts,
        fraction=1.0,
    )
    for expert in experts:
        while (assignment := assignment_next(expert=expert, round_=round_)) is not None:
            response = assignment.item.response
            flattered = response.system.name == FLATTERED and response.case.position % 4 == 0
            # The experts agree with the judge, except that one in four of the flattered
            # system's answers do not show the curiosity criterion the judge credits it with:
            # about 8 points of its score.
            hits = [True, not flattered, False, False]
            assignment_submit(
                assignment=assignment,
                votes=[
                    VoteInput(c.pk, hit)
                    for c, hit in zip(item_criteria(assignment=assignment), hits, strict=True)
                ],
                comment="",
                active_seconds=20,
                base_revision=0,
            )
    return Benchmark.objects.get(slug="gi")


def test_a_judge_lenient_with_one_system_is_refused_naming_it(researcher, coordinator):
    benchmark = _world()
    assert record(researcher, "A").json()["passed"] is True
    url = reverse("api-leaderboards", args=["gi"])
    board = corrected_board(
        board=board_runs(benchmark=benchmark, judge="judge"),
        round_=benchmark.rounds.get(name="A"),
        profile="heartbench",
    )
    bias = {row["system"]: row["overall"]["bias"] for row in board["rows"]}
    assert 7 < bias[FLATTERED] < 9 and abs(bias[FAIR]) < 1e-9
    GatePolicy.objects.update_or_create(benchmark=benchmark, defaults={"max_bias_points": 5.0})
    refused = api(coordinator).post(url, {"judge": "judge"}, format="json")
    assert refused.status_code == 409 and refused.json()["refusal"] == "judge_biased"
    detail = refused.json()["detail"]
    assert FLATTERED in detail and FAIR not in detail
    with translation.override("zh-hans"):
        chinese = api(coordinator).post(
            url, {"judge": "judge"}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans"
        )
    assert chinese.status_code == 409 and FLATTERED in chinese.json()["detail"]
    assert "宽松或严格" in chinese.json()["detail"]
    assert not LeaderboardSnapshot.objects.exists()
    # With a margin wider than the bias, the same board is published.
    GatePolicy.objects.filter(benchmark=benchmark).update(max_bias_points=20.0)
    assert api(coordinator).post(url, {"judge": "judge"}, format="json").status_code == 201
