"""Guidance experts can use: worked examples per ability and a searchable FAQ whose entries
show next to the criteria of the abilities they are linked to. Coordinators write both on
their pages; every change is in the audit log with the text it replaced."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import RESEARCHER
from accounts.services import user_create_with_role
from annotation.models import Ability, AuditEvent, FaqEntry
from annotation.services.guidance import faq_entry_save, worked_example_save
from annotation.services.review_assignment import assignment_next
from tests.conftest import PASSWORD, client_for, table_counts

pytestmark = pytest.mark.django_db


def ability(label):
    return Ability.objects.get(label=label)


def test_a_coordinator_writes_the_faq_and_every_change_is_audited(review_round, coordinator):
    client = client_for(coordinator)
    url = reverse("review-faq", args=["hb"])
    assert client.get(url).status_code == 200
    created = client.post(
        url,
        {
            "question": "用户没有明说情绪时，算“指出情绪”吗？",
            "answer": "**算**，只要回应点明了对话中*隐含*的情绪。",
            "abilities": [ability("情绪感知").pk],
        },
    )
    assert created.status_code == 302
    entry = FaqEntry.objects.get()
    assert list(entry.abilities.values_list("label", flat=True)) == ["情绪感知"]
    saved = AuditEvent.objects.get(action=AuditEvent.Action.FAQ_SAVED)
    assert saved.details["before"] is None and saved.actor == coordinator

    assert "用户没有明说情绪时" in client.get(url, {"edit": entry.pk}).content.decode()
    client.post(url, {"id": entry.pk, "question": "Q2", "answer": "A2", "abilities": []})
    entry.refresh_from_db()
    assert (entry.question, entry.abilities.count()) == ("Q2", 0)
    changed = AuditEvent.objects.filter(action=AuditEvent.Action.FAQ_SAVED).first()
    assert changed.details["before"]["question"] == "用户没有明说情绪时，算“指出情绪”吗？"

    client.post(url, {"delete": entry.pk})
    assert not FaqEntry.objects.exists()
    deleted = AuditEvent.objects.get(action=AuditEvent.Action.FAQ_DELETED)
    assert deleted.details["question"] == "Q2"


def test_bad_input_says_what_is_wrong_and_writes_nothing(review_round, coordinator):
    client = client_for(coordinator)
    before = table_counts()
    empty = client.post(reverse("review-faq", args=["hb"]), {"question": "", "answer": "a"})
    assert empty.status_code == 400 and "This field is required" in empty.content.decode()
    example = client.post(
        reverse("review-examples", args=["hb"]), {"ability": "999999", "title": "t", "body": "b"}
    )
    assert example.status_code == 400 and "Select a valid choice" in example.content.decode()
    for missing in ("12345", "abc"):
        assert (
            client.post(reverse("review-faq", args=["hb"]), {"delete": missing}).status_code == 404
        )
    assert client.get(reverse("review-examples", args=["hb"]), {"edit": "x"}).status_code == 404
    assert table_counts() == before


def test_experts_read_examples_by_ability_and_search_the_faq(review_round, experts, coordinator):
    benchmark = review_round.benchmark
    for label, title in (
        ("好奇心", "开放式问题的例子"),
        ("情绪感知", "点明疲惫"),
        ("好奇心", "追问细节"),
    ):
        worked_example_save(
            benchmark=benchmark,
            example=None,
            ability=ability(label),
            title=title,
            body=f"回答：……\n\n- 第 1 条：**命中**（{title}）",
            user=coordinator,
        )
    overtime = faq_entry_save(
        benchmark=benchmark,
        entry=None,
        question="加班的问题算开放式吗？",
        answer="看句式。<script>alert(1)</script>",
        abilities=[ability("好奇心")],
        user=coordinator,
    )
    faq_entry_save(
        benchmark=benchmark,
        entry=None,
        question="What counts as advice?",
        answer="Any suggestion.",
        abilities=[],
        user=coordinator,
    )
    url = reverse("review-guidance", args=[review_round.pk])
    page = client_for(experts[0]).get(url).content.decode()
    # Grouped by ability: two headings for three examples, each group in the order written.
    assert page.count("好奇心") >= 1 and page.count('class="ability"') == 2
    assert page.index("开放式问题的例子") < page.index("追问细节")
    assert f'id="faq-{overtime.pk}"' in page and "<strong>命中</strong>" in page
    assert "<script>alert(1)</script>" not in page

    found = client_for(experts[0]).get(url, {"q": "加班"}).content.decode()
    assert "加班的问题算开放式吗？" in found and "What counts as advice?" not in found
    by_answer = client_for(experts[0]).get(url, {"q": "SUGGESTION"}).content.decode()
    assert "What counts as advice?" in by_answer and "加班的问题" not in by_answer

    # Only the raters of the benchmark's rounds and the coordinators read it.
    assert client_for(experts[3]).get(url).status_code == 404
    assert client_for(coordinator).get(url).status_code == 200
    researcher = user_create_with_role(username="r", password=PASSWORD, role=RESEARCHER)
    assert client_for(researcher).get(url).status_code == 403


def test_a_criterion_shows_the_faq_entries_of_its_ability(review_round, experts, coordinator):
    benchmark = review_round.benchmark
    entry = faq_entry_save(
        benchmark=benchmark,
        entry=None,
        question="加班的问题算开放式吗？",
        answer="看句式。",
        abilities=[ability("好奇心")],
        user=coordinator,
    )
    assignment = assignment_next(expert=experts[0], round_=review_round)
    client = client_for(experts[0])
    url = reverse("review-annotate", args=[assignment.pk])
    with CaptureQueriesContext(connection) as one:
        page = client.get(url).content.decode()
    link = reverse("review-guidance", args=[review_round.pk]) + f"#faq-{entry.pk}"
    assert page.count(link) == 1  # only the curiosity criterion (2nd of 4) carries it
    criterion_two = page.index('<span class="pos">2.</span>')
    assert criterion_two < page.index(link) < page.index('<span class="pos">3.</span>')
    for i in range(5):
        faq_entry_save(
            benchmark=benchmark,
            entry=None,
            question=f"Q{i}",
            answer="a",
            abilities=[ability("情绪感知"), ability("言语表达")],
            user=coordinator,
        )
    with CaptureQueriesContext(connection) as more:
        assert client.get(url).status_code == 200
    assert len(one) == len(more)
