"""Adjudication decisions and guideline edits are in the audit log, as readable sentences."""

import pytest
from django.urls import reverse

from annotation import audit_actions
from annotation.services.review_adjudication import Decision, item_adjudicate
from annotation.services.review_rounds import guideline_save
from core.models import AuditEvent
from tests.annotation.review.test_adjudication_queue import SPLIT_2_1_ORDINARY
from tests.annotation.review.test_coordinator_pages import complete_round
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_adjudication_and_guideline_edits_are_in_the_log(review_round, experts, coordinator):
    complete_round(review_round, experts[:3], SPLIT_2_1_ORDINARY)
    item = review_round.items.order_by("pk").first()
    criterion = item.rubric_version.criteria.order_by("position")[1]
    item_adjudicate(item=item, by=coordinator, decisions=[Decision(criterion, False, "读错了")])
    benchmark = review_round.benchmark
    guideline_save(benchmark=benchmark, text="逐字理解每条标准。", user=coordinator)
    guideline_save(benchmark=benchmark, text="逐字理解每条标准。", user=coordinator)  # no change
    adjudicated = AuditEvent.objects.get(action=audit_actions.ITEM_ADJUDICATED)
    assert adjudicated.details["item"] == item.code
    assert adjudicated.details["decisions"] == [{"criterion": 2, "decision": "not_met"}]
    saved = AuditEvent.objects.filter(action=audit_actions.GUIDELINES_SAVED)
    assert saved.count() == 1 and saved.get().details["to"] == "逐字理解每条标准。"
    page = client_for(coordinator).get(reverse("audit-log"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = page.content.decode()
    assert "不符合" in text and item.code in text
