"""The audit log shows each event's details as readable, translated sentences, not as raw
`key=value` text in monospace; the exports keep the stored JSON."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from annotation import audit_actions
from annotation.audit_details import details_sentences
from annotation.models import Benchmark
from core.audit.services import audit_record

pytestmark = pytest.mark.django_db
ROUND_OPENED = {
    "round": "R1",
    "items": 40,
    "experts": ["ann", "bo"],
    "fraction": 0.5,
    "seed": 7,
    "raters_per_item": 3,
}
CLOSED = {"round": "R1", "from": "open", "to": "closed", "started_not_submitted": 2}


def page_for(user, language: str) -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client.get(reverse("audit-log")).content.decode()


def test_details_read_as_sentences_in_english(coordinator):
    hb = Benchmark.objects.create(slug="hb", name="HeartBench")
    audit_record(
        actor=coordinator, action=audit_actions.ROUND_OPENED, benchmark=hb, details=ROUND_OPENED
    )
    audit_record(actor=coordinator, action=audit_actions.ROUND_CLOSED, benchmark=hb, details=CLOSED)
    page = page_for(coordinator, "en")
    for sentence in (
        "Round: R1.",
        "Items: 40.",
        "Experts: ann, bo.",
        "Raters per item: 3.",
        "Changed from open to closed.",
        "Items started but not submitted: 2.",
    ):
        assert sentence in page
    assert "raters_per_item" not in page and "round=R1" not in page
    assert not re.search(r"<code>[^<]*=", page)  # no key=value in monospace


def test_details_are_translated_in_chinese(coordinator):
    hb = Benchmark.objects.create(slug="hb", name="HeartBench")
    audit_record(actor=coordinator, action=audit_actions.ROUND_CLOSED, benchmark=hb, details=CLOSED)
    page = page_for(coordinator, "zh-hans")
    with translation.override("zh-hans"):
        expected = details_sentences(CLOSED)
        assert "轮次" in expected[-2]  # "Round", from the catalogue
    for sentence in expected:
        assert sentence in page
    assert "started_not_submitted" not in page and "from=" not in page


def test_every_detail_the_application_writes_has_a_label():
    """Each key an audit_record call stores has a translated label (none shown raw)."""
    from pathlib import Path

    from annotation.audit_details import LABELS

    root = Path(__file__).resolve().parents[3]
    keys = set()
    for folder in ("annotation", "judging", "leaderboard", "accounts"):
        for path in (root / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for call in re.finditer(r"details=\{(.*?)\}", text, re.S):
                keys |= set(re.findall(r'"(\w+)":', call.group(1)))
    missing = sorted(keys - set(LABELS) - {"from", "to"})
    assert not missing, f"audit details without a label: {missing}"


def test_a_long_text_is_cut_and_values_are_readable():
    with translation.override("en"):
        sentences = details_sentences({"before": "x" * 500, "passed": True, "runs": [3, 4]})
    assert sentences[0].endswith("….") and len(sentences[0]) < 200
    assert sentences[1] == "Passed the gate: yes."
    assert sentences[2] == "Judge runs: 3, 4."
