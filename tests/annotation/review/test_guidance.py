"""Guidance experts can use: worked examples per ability and a searchable FAQ whose entries
show next to the criteria of the abilities they are linked to. Coordinators write both on
their pages; every change is in the audit log with the text it replaced."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import RESEARCHER
from accounts.services import user_create_with_role
from annotation import audit_actions
from annotation.models import Ability, FaqEntry
from annotation.services.guidance import faq_entry_save, worked_example_save
from annotation.services.review_assignment import assignment_next
from core.models import AuditEvent
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
    saved = AuditEvent.objects.get(action=audit_actions.FAQ_SAVED)
    assert saved.details["before"] is None and saved.actor == coordinator

    assert "用户没有明说情绪时" in client.get(url, {"edit": entry.pk}).content.decode()
    client.post(url, {"id": entry.pk, "question": "Q2", "answer": "A2", "abilities": []})
    entry.refresh_from_db()
    assert (entry.question, entry.abilities.count()) == ("Q2", 0)
    changed = AuditEvent.objects.filter(action=audit_actions.FAQ_SAVED).first()
    assert changed.details["before"]["question"] == "用户没有明说情绪时，算“指出情绪”吗？"

    client.post(url, {"delete": entry.pk})
    assert not FaqEntry.objects.exists()
    deleted = AuditEvent.objects.get(action=audit_actions.FAQ_DELETED)
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


def test_an_entry_can_name_its_criteria_and_follows_them_into_new_versions(experts, coordinator):
    """The "8 or more suggestions" answer belongs beside that criterion, not beside every
    criterion of its ability (the third walk's finding)."""
    from annotation.models import Benchmark, Criterion, System
    from annotation.services.benchmark_import import benchmark_import
    from annotation.services.responses_import import responses_import
    from annotation.services.review_rounds import round_open
    from tests.conftest import jsonl_bytes, lines, question

    rubric = [
        {"dimension": "言语表达", "score": -10, "content": "一次性给出 8 条或更多建议"},
        {"dimension": "言语表达", "score": -5, "content": "连续提出 3 个以上的问题"},
        {"dimension": "好奇心", "score": 4, "content": "用开放式问题询问具体情况"},
    ]
    benchmark_import(
        chunks=lines(jsonl_bytes([question("f1", rubric=rubric)])), benchmark_slug="fq"
    )
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": "f1", "response": "嗯"}])),
        benchmark_slug="fq",
        system_name="Sys",
    )
    benchmark = Benchmark.objects.get(slug="fq")
    client = client_for(coordinator)
    url = reverse("review-faq", args=["fq"])
    form = {"question": "建议算几条？", "answer": "逐条数。", "criteria": "f1#1"}
    assert client.post(url, form).status_code == 302
    entry = FaqEntry.objects.get(benchmark=benchmark)
    first = Criterion.objects.get(rubric_version__case__external_id="f1", position=1)
    assert entry.criterion_keys == [str(first.key)]
    general = faq_entry_save(
        benchmark=benchmark,
        entry=None,
        question="言语表达看什么？",
        answer="看整体。",
        abilities=[ability("言语表达")],
        user=coordinator,
    )
    round_ = round_open(
        benchmark=benchmark,
        name="fq-r",
        systems=list(System.objects.filter(name="Sys")),
        experts=experts[:1],
        fraction=1.0,
        raters_per_item=1,
    )
    assignment = assignment_next(expert=experts[0], round_=round_)
    page = client_for(experts[0]).get(reverse("review-annotate", args=[assignment.pk]))
    page = page.content.decode()
    guidance = reverse("review-guidance", args=[round_.pk])
    named, by_ability = f"{guidance}#faq-{entry.pk}", f"{guidance}#faq-{general.pk}"
    assert page.count(named) == 1 and page.count(by_ability) == 2
    assert page.index('<span class="pos">1.</span>') < page.index(named)
    assert page.index(named) < page.index('<span class="pos">2.</span>')
    # The editor shows the criterion by case and number; a wrong reference is named.
    edit = client.get(url, {"edit": entry.pk}).content.decode()
    assert "f1#1" in edit
    bad = client.post(url, {**form, "criteria": "f1#9\nnope"})
    assert bad.status_code == 400 and "f1#9" in bad.content.decode()
