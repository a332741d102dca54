import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Case, RubricComment, RubricDraft, RubricVersion
from annotation.selectors.rubric_rows import rows_of_version
from annotation.services.benchmark_import import benchmark_import
from annotation.services.rubrics import rubric_version_create
from tests.conftest import client_for, jsonl_bytes, lines, question, table_counts
from tests.factories import CaseFactory, RubricVersionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def case():
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")
    return Case.objects.get(external_id="c1")


def url(name, *extra):
    return reverse(name, args=["hb", "c1", *extra])


def form_of(case, changes: dict | None = None) -> dict:
    """The editor's form fields for the case's current rows, with `changes` by position."""
    rows = rows_of_version(case.rubric_versions.order_by("-number").first())
    data = {"key": [], "ability": [], "weight": [], "text": []}
    for position, row in enumerate(rows, start=1):
        row_changes = (changes or {}).get(position, {})
        data["key"].append(row.key)
        data["ability"].append(row_changes.get("ability", row.ability))
        weight = row_changes.get("weight", row.weight)
        data["weight"].append("" if weight is None else str(weight))
        data["text"].append(row_changes.get("text", row.text))
    return data


HX = {"HX-Request": "true"}


def test_anonymous_users_are_sent_to_login(case):
    client = client_for(None)
    for name in ("rubric-editor", "rubric-history"):
        assert client.get(url(name)).status_code == 302
    for name in (
        "rubric-draft",
        "rubric-publish",
        "rubric-rebase",
        "rubric-discard",
        "rubric-comment",
    ):
        assert client.post(url(name)).status_code == 302
    assert client.get(reverse("rubric-overview", args=["hb"])).status_code == 302
    assert client.get(reverse("audit-log")).status_code == 302


def test_an_expert_without_the_authoring_permission_can_discuss_but_not_publish(case, expert):
    client = client_for(expert)
    page = client.get(url("rubric-editor"))
    assert page.status_code == 200
    body = page.content.decode()
    assert 'id="rubric-editor"' not in body and 'id="publish-form"' not in body
    assert "指出用户的疲惫和压力感" in body
    before = table_counts()
    for name in ("rubric-draft", "rubric-publish", "rubric-rebase", "rubric-discard"):
        assert client.post(url(name), {**form_of(case), "note": "x"}).status_code == 403, name
    assert client.post(url("rubric-restore", 1)).status_code == 403
    assert table_counts() == before
    assert (
        client.post(url("rubric-comment"), {"text": "第二条太宽泛"}, headers=HX).status_code == 200
    )
    assert RubricComment.objects.get().author == expert
    assert client.get(reverse("audit-log")).status_code == 403
    assert client.get(reverse("rubric-overview", args=["hb"])).status_code == 403


def test_researchers_cannot_edit_or_comment(case, researcher):
    client = client_for(researcher)
    assert client.get(url("rubric-editor")).status_code == 403
    assert client.post(url("rubric-comment"), {"text": "x"}).status_code == 403
    assert client.get(reverse("rubric-overview", args=["hb"])).status_code == 200


def test_autosave_keeps_a_draft_and_reports_row_problems(case, coordinator):
    client = client_for(coordinator)
    response = client.post(url("rubric-draft"), form_of(case, {2: {"weight": "0"}}), headers=HX)
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="autosave-status" class="muted not-ready" hx-swap-oob="true"' in body
    assert "A weight of 0 counts for nothing" in body
    draft = RubricDraft.objects.get()
    assert draft.rows[1]["weight"] == 0 and draft.base_version.number == 1
    page = client.get(url("rubric-editor")).content.decode()
    assert "You are editing a draft based on version 1" in page


def test_row_actions_rerender_the_rows(case, coordinator):
    client = client_for(coordinator)
    data = form_of(case)
    first, second = data["key"][0], data["key"][1]
    moved = client.post(url("rubric-draft"), {**data, "action": f"down:{first}"}, headers=HX)
    body = moved.content.decode()
    assert body.startswith('\n<form id="rubric-editor"') or '<form id="rubric-editor"' in body[:200]
    assert body.index(second) < body.index(first)
    added = client.post(url("rubric-draft"), {**data, "action": "add"}, headers=HX)
    assert added.content.decode().count('name="key"') == 5
    removed = client.post(url("rubric-draft"), {**data, "action": f"remove:{first}"}, headers=HX)
    assert removed.content.decode().count('name="key"') == 3


def test_publishing_in_the_editor_creates_version_two(case, coordinator):
    client = client_for(coordinator)
    data = form_of(case, {1: {"text": "准确说出用户的疲惫"}})
    response = client.post(url("rubric-publish"), {**data, "note": "更具体"}, headers=HX)
    assert response.status_code == 204
    assert response["HX-Redirect"] == url("rubric-history")
    v1, v2 = RubricVersion.objects.filter(case=case).order_by("number")
    assert v1.criteria.get(position=1).text == "指出用户的疲惫和压力感"
    assert v2.criteria.get(position=1).text == "准确说出用户的疲惫"
    assert (v2.author, v2.note, v2.parent) == (coordinator, "更具体", v1)
    history = client.get(url("rubric-history")).content.decode()
    assert "<mark>准确说出用户的疲惫</mark>" in history and "更具体" in history


def test_publishing_invalid_rows_shows_the_problems_next_to_the_rows(case, coordinator):
    client = client_for(coordinator)
    data = form_of(case, {1: {"text": ""}, 2: {"weight": "12"}})
    before = RubricVersion.objects.count()
    response = client.post(url("rubric-publish"), {**data, "note": ""}, headers=HX)
    assert response.status_code == 422
    body = response.content.decode()
    assert "Write a short change note" in body
    assert "Criterion 1: Write the criterion text." in body
    assert f'id="errors-{data["key"][1]}" hx-swap-oob="true"' in body
    assert "The weight 12 is out of range" in body
    assert RubricVersion.objects.count() == before
    assert RubricDraft.objects.get().rows[0]["text"] == ""  # the work is kept


def test_a_stale_editor_sees_the_conflict_and_can_rebase(case, coordinator):
    client = client_for(coordinator)
    client.post(url("rubric-draft"), form_of(case, {1: {"text": "我的措辞"}}), headers=HX)
    rows = rows_of_version(case.rubric_versions.get())
    rows[1] = rows[1].__class__(rows[1].key, rows[1].ability, 7, rows[1].text)
    rubric_version_create(case=case, rows=rows, parent_number=1, author=None, note="他人修改")
    data = form_of(case, {1: {"text": "我的措辞"}, 2: {"weight": "4"}})
    response = client.post(url("rubric-publish"), {**data, "note": "mine"}, headers=HX)
    assert response.status_code == 409
    body = response.content.decode()
    assert "Someone else published first" in body
    assert '<mark class="weight-change">7</mark>' in body
    assert RubricDraft.objects.get().rows[0]["text"] == "我的措辞"
    client.post(url("rubric-rebase"))
    draft = RubricDraft.objects.get()
    assert draft.base_version.number == 2
    assert [draft.rows[0]["text"], draft.rows[1]["weight"]] == ["我的措辞", 7]


def test_history_diff_and_restore(case, coordinator):
    rows = rows_of_version(case.rubric_versions.get())
    changed = [rows[0].__class__(rows[0].key, "温暖", 2, rows[0].text), *rows[1:]]
    rubric_version_create(
        case=case, rows=changed, parent_number=1, author=coordinator, note="ability"
    )
    client = client_for(coordinator)
    page = client.get(url("rubric-history"), {"a": 1, "b": 2}).content.decode()
    assert '<mark class="ability-change">温暖</mark>' in page
    assert '<mark class="weight-change">2</mark>' in page
    assert client.get(url("rubric-history"), {"a": 9}).status_code == 404
    response = client.post(url("rubric-restore", 1))
    assert response.status_code == 302
    v3 = case.rubric_versions.get(number=3)
    assert rows_of_version(v3) == rows and v3.source == "restore"


def test_overview_counts_search_changes_and_export(case, coordinator):
    client = client_for(coordinator)
    page = client.get(
        reverse("rubric-overview", args=["hb"]), {"q": "开放式", "since": "2000-01-01"}
    )
    body = page.content.decode()
    assert page.status_code == 200
    assert "用开放式问题询问加班的具体情况" in body
    assert 'id="rubric-chart-data"' in body
    assert "No rubric changed since that date." in body
    bad = client.get(reverse("rubric-overview", args=["hb"]), {"since": "yesterday"})
    assert bad.status_code == 400
    assert "“yesterday” is not a date: enter a real day as YYYY-MM-DD." in bad.content.decode()
    export = client.get(reverse("rubric-export", args=["hb"]))
    assert export["Content-Type"] == "application/x-ndjson"
    assert b"".join(export.streaming_content).decode().count("\n") == 1


def test_audit_log_lists_rubric_actions(case, coordinator):
    client = client_for(coordinator)
    client.post(url("rubric-publish"), {**form_of(case, {1: {"weight": "5"}}), "note": "调权重"})
    body = client.get(reverse("audit-log")).content.decode()
    for label in ("rubrics imported", "rubric draft created", "rubric version published"):
        assert label in body


def test_editor_query_count_does_not_grow_with_criteria_versions_or_comments(coordinator, expert):
    client = client_for(coordinator)
    counts = []
    for n, size in enumerate((3, 25)):
        case = CaseFactory(benchmark__slug="hb", external_id=f"q{n}")
        for number in range(1, 2 + size // 5):
            RubricVersionFactory(case=case, number=number, criteria=size)
        for i in range(size // 3):
            RubricComment.objects.create(case=case, author=expert, text=f"c{i}")
        client.post(
            reverse("rubric-draft", args=["hb", case.external_id]),
            form_of(case),
            headers=HX,
        )
        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse("rubric-editor", args=["hb", case.external_id]))
        assert response.status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
