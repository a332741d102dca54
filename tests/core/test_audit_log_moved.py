"""The audit log moved from annotation to core without moving a row: an installation that
recorded events before the move reads every one of them afterwards, and can step back."""

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from core.models import AuditEvent

# Real migrations back and forth need their own transactions (SQLite turns off its foreign
# key checks for a schema change only outside one).
pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("annotation", "0019_sampling_weights"), ("core", None)]
OLD_STATE = [("annotation", "0019_sampling_weights")]


def _migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


def _record_with_the_old_model(executor: MigrationExecutor) -> list[dict]:
    old = executor.loader.project_state(OLD_STATE).apps
    user = old.get_model("auth", "User").objects.create(username="old-coordinator")
    benchmark = old.get_model("annotation", "Benchmark").objects.create(slug="hb", name="HB")
    case = old.get_model("annotation", "Case").objects.create(
        benchmark=benchmark, external_id="q1", dialogue=[], difficulty="easy"
    )
    version = old.get_model("annotation", "RubricVersion").objects.create(
        case=case, number=1, source="import", content_hash="0" * 64
    )
    event = old.get_model("annotation", "AuditEvent")
    rows = [
        {
            "actor": user,
            "action": "rubric.imported",
            "benchmark": benchmark,
            "case": case,
            "version": version,
            "details": {"criteria": 3},
        },
        {
            "actor": user,
            "action": "judging.run_started",
            "benchmark": benchmark,
            "details": {"run": 7, "note": "中文"},
        },
        {"actor": None, "action": "leaderboard.gate_evaluated", "details": {}},
    ]
    for row in rows:
        event.objects.create(**row)
    day = timezone.now() - dt.timedelta(days=30)
    event.objects.filter(action="rubric.imported").update(created=day)
    return [
        {
            "actor": row["actor"].username if row["actor"] else None,
            "action": row["action"],
            "benchmark": row["benchmark"].slug if row.get("benchmark") else None,
            "case": row["case"].external_id if row.get("case") else None,
            "version": row["version"].number if row.get("version") else None,
            "details": row["details"],
        }
        for row in rows
    ]


def _read_with_the_new_model() -> list[dict]:
    return [
        {
            "actor": e.actor.username if e.actor else None,
            "action": e.action,
            "benchmark": e.benchmark.slug if e.benchmark else None,
            "case": e.case.external_id if e.case else None,
            "version": e.version.number if e.version else None,
            "details": e.details,
        }
        for e in AuditEvent.objects.select_related(
            "actor", "benchmark", "case", "version"
        ).order_by("pk")
    ]


def test_events_recorded_before_the_move_are_read_after_it_and_after_a_step_back():
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        executor = _migrate(BEFORE)
        recorded = _record_with_the_old_model(executor)
        old_ids = list(
            executor.loader.project_state(OLD_STATE)
            .apps.get_model("annotation", "AuditEvent")
            .objects.order_by("pk")
            .values_list("pk", "created")
        )

        _migrate(latest)
        assert _read_with_the_new_model() == recorded
        assert list(AuditEvent.objects.order_by("pk").values_list("pk", "created")) == old_ids
        labels = [str(e.get_action_display()) for e in AuditEvent.objects.order_by("pk")]
        assert labels == ["rubrics imported", "judge run started", "gate evaluated"]
        # The move wrote nothing: the next event takes the next number of the same table.
        later = AuditEvent.objects.create(action="review.round_opened", details={})
        assert later.pk > old_ids[-1][0]

        executor = _migrate(BEFORE)
        old = executor.loader.project_state(OLD_STATE).apps.get_model("annotation", "AuditEvent")
        assert old.objects.count() == 4
        _migrate(latest)
        assert _read_with_the_new_model()[:3] == recorded
    finally:
        _migrate(latest)
