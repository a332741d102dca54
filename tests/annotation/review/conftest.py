import datetime as dt

import pytest
from django.utils import timezone

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, Benchmark, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_rounds import round_open
from tests.conftest import PASSWORD, jsonl_bytes, lines, question

SYSTEM_NAMES = ("SecretAlpha-7b", "SecretBeta-70b", "Human counsellor X")


@pytest.fixture
def review_data(db):
    """Ten cases (four hard, two scenarios), three systems answering all of them."""
    rows = []
    for i in range(1, 11):
        rows.append(
            question(
                f"c{i:02d}",
                difficulty="hard" if i % 3 == 0 else "normal",
                primary_scene="职场心理" if i % 2 else "亲密关系",
                secondary_scene="工作压力" if i % 2 else "分手",
            )
        )
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb")
    for name in SYSTEM_NAMES:
        answers = [{"question_id": f"c{i:02d}", "response": f"回答 {i}"} for i in range(1, 11)]
        kind = "human" if name.startswith("Human") else "llm"
        responses_import(
            chunks=lines(jsonl_bytes(answers)),
            benchmark_slug="hb",
            system_name=name,
            system_kind=kind,
        )
    return Benchmark.objects.get(slug="hb"), list(System.objects.order_by("name"))


@pytest.fixture
def experts(db):
    return [
        user_create_with_role(username=f"exp{i}", password=PASSWORD, role=EXPERT)
        for i in range(1, 5)
    ]


@pytest.fixture
def review_round(review_data, experts):
    benchmark, systems = review_data
    return round_open(
        benchmark=benchmark, name="R1", systems=systems, experts=experts[:3], fraction=0.3
    )


def assigned_minutes_ago(assignment, minutes: int = 10) -> None:
    """As if the expert had been handed the item a while ago: active time is credited only
    as far as the clock has run since (a save right after the hand-out adds nothing)."""
    Assignment.objects.filter(pk=assignment.pk).update(
        assigned=timezone.now() - dt.timedelta(minutes=minutes)
    )
