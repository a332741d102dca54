"""A recorded sequential decision stays as recorded when the round is extended (the third
walk's finding 20: decided at item 34, then 36 after an extension)."""

import pytest
from django.urls import reverse

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation import audit_actions
from annotation.models import Benchmark, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_rounds import round_extend, round_open
from core.models import AuditEvent
from judging.services.judgments_import import judgments_import
from leaderboard.sequential.selectors.round_state import round_sequential
from leaderboard.sequential.services import RECORDED, round_decision_check
from tests.conftest import client_for, jsonl_bytes, lines, question
from tests.leaderboard.test_gate_integrity import rate

pytestmark = pytest.mark.django_db

SMALL = [f"s{i:02d}" for i in range(30)]
LARGE = [f"l{i:02d}" for i in range(30)]


def _import(cases, criteria: int) -> None:
    rubric = [{"dimension": "好奇心", "score": 1, "content": f"标准 {n}"} for n in range(criteria)]
    benchmark_import(
        chunks=lines(jsonl_bytes([question(q, rubric=rubric) for q in cases])), benchmark_slug="dr"
    )
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": q, "response": "嗯"} for q in cases])),
        benchmark_slug="dr",
        system_name="Sys",
    )
    judgments_import(
        chunks=lines(
            jsonl_bytes([{"question_id": q, "score_detail": [1] * criteria} for q in cases])
        ),
        benchmark_slug="dr",
        system_name="Sys",
        judge_name="judge",
    )


def test_extending_a_decided_round_keeps_its_recorded_decision(coordinator):
    _import(SMALL, 4)
    experts = [
        user_create_with_role(username=f"dr{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    round_ = round_open(
        benchmark=Benchmark.objects.get(slug="dr"),
        name="decided",
        systems=list(System.objects.all()),
        experts=experts,
        fraction=0.5,
    )
    rate(round_, experts, agreeing=2)  # the judge is wrong on half the units: it fails
    assert round_decision_check(round_id=round_.pk) == RECORDED
    recorded = AuditEvent.objects.get(action=audit_actions.ROUND_DECIDED).details
    assert recorded["decision"] == "fail"

    _import(LARGE, 12)  # larger rubrics join the benchmark; the round grows into them
    round_extend(round_=round_, fraction=0.6)
    state = round_sequential(round_=round_).state
    assert (state["decision"], state["decided_at"]) == ("fail", recorded["decided_at"])
    card = client_for(coordinator).get(reverse("round-sequential", args=[round_.pk]))
    assert 'data-decision="fail"' in card.content.decode()
    # Without the record, the same votes read at the grown round's scale decide later (or
    # not yet): what the record keeps from moving.
    fresh = round_sequential(round_=round_, judge="judge").state
    assert (fresh["decision"], fresh["decided_at"]) != ("fail", recorded["decided_at"])
