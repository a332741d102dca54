"""The agreement and leaderboard pages run a fixed number of queries whatever the size."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, System
from annotation.selectors.review import item_criteria
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeRun
from judging.services.judgments_import import judgments_import
from tests.conftest import client_for, jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db


def build(slug: str, cases: int) -> tuple:
    ids = [f"{slug}{i}" for i in range(cases)]
    benchmark_import(chunks=lines(jsonl_bytes([question(q) for q in ids])), benchmark_slug=slug)
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": q, "response": "嗯"} for q in ids])),
        benchmark_slug=slug,
        system_name=f"S-{slug}",
    )
    experts = [
        user_create_with_role(username=f"{slug}-e{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    round_ = round_open(
        benchmark=Benchmark.objects.get(slug=slug),
        name=f"R-{slug}",
        systems=list(System.objects.filter(name=f"S-{slug}")),
        experts=experts,
        fraction=1.0,
    )
    for expert in experts:
        while (a := assignment_next(expert=expert, round_=round_)) is not None:
            votes = [VoteInput(c.pk, c.position % 2 == 1) for c in item_criteria(assignment=a)]
            assignment_submit(
                assignment=a, votes=votes, comment="", active_seconds=9, base_revision=0
            )
    judgments_import(
        chunks=lines(jsonl_bytes([{"question_id": q, "score_detail": [1, 0, 1, 1]} for q in ids])),
        benchmark_slug=slug,
        system_name=f"S-{slug}",
        judge_name=f"J-{slug}",
    )
    return round_, JudgeRun.objects.get(benchmark__slug=slug)


def count(client, url, params) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url, params).status_code == 200
    return len(queries)


def test_agreement_and_leaderboard_queries_do_not_grow_with_the_data(coordinator):
    client = client_for(coordinator)
    counts = []
    for slug, cases in (("small", 2), ("large", 12)):
        round_, run = build(slug, cases)
        counts.append(
            (
                count(
                    client, reverse("agreement", args=[slug]), {"round": round_.pk, "run": run.pk}
                ),
                count(client, reverse("leaderboard", args=[slug]), {"run": run.pk}),
                count(
                    client,
                    reverse("disagreements", args=[slug]),
                    {"round": round_.pk, "run": run.pk},
                ),
            )
        )
    assert counts[0] == counts[1], counts
