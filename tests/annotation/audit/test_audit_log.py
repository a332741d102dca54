"""The audit log can be filtered by action, actor, benchmark and dates, and exported as
spreadsheet-safe CSV and JSON Lines with the same filters."""

import csv
import datetime as dt
import io
import json

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation import audit_actions as annotation_actions
from annotation.models import Benchmark
from core.audit.services import audit_record
from core.models import AuditEvent
from judging import audit_actions as judging_actions
from leaderboard import audit_actions as leaderboard_actions
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def events(coordinator, researcher):
    hb = Benchmark.objects.create(slug="hb", name="HeartBench")
    other = Benchmark.objects.create(slug="other", name="Other")
    old = audit_record(
        actor=coordinator,
        action=annotation_actions.ROUND_OPENED,
        benchmark=hb,
        details={"round": "R0"},
    )
    AuditEvent.objects.filter(pk=old.pk).update(created=timezone.now() - dt.timedelta(days=10))
    audit_record(
        actor=coordinator,
        action=annotation_actions.ROUND_CLOSED,
        benchmark=hb,
        details={"round": '=HYPERLINK("x")', "items": 9},
    )
    audit_record(
        actor=researcher, action=leaderboard_actions.GATE_EVALUATED, benchmark=other, details={}
    )
    return hb, other


def body(response) -> str:
    return response.content.decode()


def cell(label: str) -> str:
    return f"<td>{label}</td>"


def test_the_log_filters_by_action_actor_benchmark_and_dates(events, coordinator):
    client = client_for(coordinator)
    log = reverse("audit-log")
    everything = body(client.get(log))
    for label in ("review round opened", "review round closed", "gate evaluated"):
        assert cell(label) in everything
    # A detail named like a dict method ("items") is shown, not looked up as the method.
    assert "Items: 9." in everything
    by_action = body(client.get(log, {"action": "review.round_closed"}))
    assert cell("review round closed") in by_action and cell("gate evaluated") not in by_action
    by_actor = body(client.get(log, {"actor": "research"}))
    assert cell("gate evaluated") in by_actor and "review round closed</td>" not in by_actor
    by_benchmark = body(client.get(log, {"benchmark": "other"}))
    assert cell("gate evaluated") in by_benchmark and "review round opened</td>" not in by_benchmark
    today = timezone.localdate()
    recent = body(client.get(log, {"since": (today - dt.timedelta(days=1)).isoformat()}))
    assert "review round opened</td>" not in recent and "review round closed</td>" in recent
    week_ago = (today - dt.timedelta(days=7)).isoformat()
    older = body(client.get(log, {"until": week_ago}))
    assert "review round opened</td>" in older and "review round closed</td>" not in older
    # The export links keep the filter.
    assert "/audit/export.csv?benchmark=other" in by_benchmark


def test_nonsense_filters_are_named_not_a_500(events, coordinator):
    client = client_for(coordinator)
    response = client.get(
        reverse("audit-log"),
        {"action": "nope", "benchmark": "gone", "since": "2026-13-45", "until": "soon"},
    )
    assert response.status_code == 400
    page = body(response)
    assert "“nope” is not an action of the log." in page
    assert "There is no benchmark “gone”." in page
    assert "“2026-13-45” is not a date" in page and "“soon” is not a date" in page
    export = client.get(reverse("audit-export", args=["csv"]), {"since": "x"})
    assert export.status_code == 400
    assert client.get(reverse("audit-export", args=["xlsx"])).status_code == 404


def test_exports_are_filtered_and_spreadsheet_safe(events, coordinator):
    client = client_for(coordinator)
    response = client.get(reverse("audit-export", args=["csv"]), {"benchmark": "hb"})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [r["action"] for r in rows] == ["review.round_closed", "review.round_opened"]
    assert rows[0]["actor"] == "coord" and rows[0]["benchmark"] == "hb"
    # The details are one JSON cell; it starts with "{", not a formula. A text cell that
    # would run as a formula gets an apostrophe.
    assert json.loads(rows[0]["details"])["round"] == '=HYPERLINK("x")'
    record = audit_record(actor=None, action=judging_actions.RUN_STARTED, details={})
    AuditEvent.objects.filter(pk=record.pk).update(action="=cmd|' /C calc'!A0")
    cells = b"".join(client.get(reverse("audit-export", args=["csv"])).streaming_content)
    assert "'=cmd|" in cells.decode()

    lines = client.get(reverse("audit-export", args=["jsonl"]), {"actor": "research"})
    assert lines["Content-Type"] == "application/x-ndjson"
    records = [json.loads(line) for line in b"".join(lines.streaming_content).splitlines()]
    assert len(records) == 1
    assert records[0]["action"] == "leaderboard.gate_evaluated"
    assert records[0]["benchmark"] == "other" and records[0]["details"] == {}


def test_only_those_with_the_audit_permission_read_or_export(events, researcher, expert):
    for user in (researcher, expert):
        client = client_for(user)
        assert client.get(reverse("audit-log")).status_code == 403
        assert client.get(reverse("audit-export", args=["csv"])).status_code == 403
        assert client.get(reverse("audit-export", args=["jsonl"])).status_code == 403
