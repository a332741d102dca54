import dataclasses

import pytest

from annotation.models import RubricDraft, RubricVersion
from annotation.rubric_edit.diff import Change
from annotation.rubric_edit.rows import new_row
from annotation.selectors.rubric_rows import rows_of_version
from annotation.services.benchmark_import import benchmark_import
from annotation.services.rubrics import (
    RubricConflict,
    RubricInvalid,
    draft_rows,
    rubric_comment_add,
    rubric_draft_publish,
    rubric_draft_rebase,
    rubric_draft_save,
    rubric_version_create,
    rubric_version_restore,
)
from core.models import AuditEvent
from tests.conftest import jsonl_bytes, lines, question, table_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def case():
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")
    from annotation.models import Case

    return Case.objects.get(external_id="c1")


def v1_rows(case):
    return rows_of_version(case.rubric_versions.get(number=1))


def test_publishing_creates_the_next_version_and_leaves_the_old_one(case, coordinator):
    rows = v1_rows(case)
    old_texts = [r.text for r in rows]
    rows[0] = dataclasses.replace(rows[0], text="准确点出用户的疲惫")
    draft = rubric_draft_save(case=case, author=coordinator, rows=rows)
    version = rubric_draft_publish(draft=draft, note="更具体")
    assert (version.number, version.parent.number, version.author, version.note) == (
        2,
        1,
        coordinator,
        "更具体",
    )
    assert [r.text for r in v1_rows(case)] == old_texts
    new = rows_of_version(version)
    assert new[0].text == "准确点出用户的疲惫"
    assert [r.key for r in new] == [r.key for r in rows]  # identities carried over
    assert not RubricDraft.objects.exists()
    actions = list(AuditEvent.objects.order_by("pk").values_list("action", flat=True))
    assert actions == ["rubric.imported", "rubric.draft_created", "rubric.published"]


def test_invalid_rows_and_missing_note_are_refused_and_nothing_is_written(case, coordinator):
    rows = [*v1_rows(case), new_row("温暖", 0, "")]
    draft = rubric_draft_save(case=case, author=coordinator, rows=rows)
    before = table_counts()
    with pytest.raises(RubricInvalid) as caught:
        rubric_draft_publish(draft=draft, note="  ")
    problems = caught.value.problems
    assert problems.rubric[0].startswith("Write a short change note")
    assert problems.rows[rows[-1].key] == [
        "Write the criterion text.",
        "A weight of 0 counts for nothing: use -10 to -1 or 1 to 10.",
    ]
    assert table_counts() == before
    assert RubricDraft.objects.filter(pk=draft.pk).exists()


def test_an_unchanged_rubric_is_not_published_again(case, coordinator):
    draft = rubric_draft_save(case=case, author=coordinator, rows=v1_rows(case))
    with pytest.raises(RubricInvalid, match="Nothing to publish"):
        rubric_draft_publish(draft=draft, note="no change")


def test_two_editors_conflict_and_neither_edit_is_lost(case, coordinator, django_user_model):
    from accounts.services import user_create_with_role

    other = user_create_with_role(username="coord2", password="x-pass-123", role="Coordinator")
    rows = v1_rows(case)
    mine = [dataclasses.replace(rows[0], text="我的修改"), *rows[1:]]
    theirs = [rows[0], dataclasses.replace(rows[1], weight=6), *rows[2:]]
    my_draft = rubric_draft_save(case=case, author=coordinator, rows=mine)
    their_draft = rubric_draft_save(case=case, author=other, rows=theirs)
    v2 = rubric_draft_publish(draft=their_draft, note="权重调整")

    with pytest.raises(RubricConflict) as caught:
        rubric_draft_publish(draft=my_draft, note="措辞")
    conflict = caught.value
    assert (conflict.base.number, conflict.latest.number) == (1, 2)
    changed = [e for e in conflict.changes if e.change == Change.CHANGED]
    assert len(changed) == 1 and changed[0].fields == {"weight"}
    assert "Version 2 was published by coord2" in str(conflict)
    my_draft.refresh_from_db()
    assert draft_rows(my_draft) == mine  # kept as written

    rubric_draft_rebase(draft=my_draft)
    my_draft.refresh_from_db()
    assert my_draft.base_version == v2 and my_draft.conflicts == {}
    merged = draft_rows(my_draft)
    assert (merged[0].text, merged[1].weight) == ("我的修改", 6)
    v3 = rubric_draft_publish(draft=my_draft, note="措辞")
    assert v3.number == 3
    final = rows_of_version(v3)
    assert (final[0].text, final[1].weight) == ("我的修改", 6)
    assert AuditEvent.objects.filter(action="rubric.conflict").count() == 1


def test_the_api_style_create_checks_the_parent_number(case, coordinator):
    rows = v1_rows(case)
    rows[0] = dataclasses.replace(rows[0], weight=5)
    with pytest.raises(RubricConflict):
        rubric_version_create(case=case, rows=rows, parent_number=0, author=coordinator, note="x")
    version = rubric_version_create(
        case=case, rows=rows, parent_number=1, author=coordinator, note="x"
    )
    assert version.number == 2


def test_restore_creates_a_new_version_equal_to_the_old_one(case, coordinator):
    rows = v1_rows(case)
    changed = [dataclasses.replace(rows[0], text="改过"), *rows[1:]]
    rubric_version_create(case=case, rows=changed, parent_number=1, author=coordinator, note="edit")
    restored = rubric_version_restore(case=case, number=1, author=coordinator)
    assert restored.number == 3 and restored.source == RubricVersion.Source.RESTORE
    assert restored.note == "Restored version 1"
    assert rows_of_version(restored) == rows
    assert restored.content_hash == case.rubric_versions.get(number=1).content_hash
    assert AuditEvent.objects.filter(action="rubric.restored", details__restored=1).exists()


def test_comments_are_tied_to_the_version_seen(case, expert):
    comment = rubric_comment_add(case=case, author=expert, text="第三条有歧义")
    assert comment.version.number == 1
    with pytest.raises(ValueError):
        rubric_comment_add(case=case, author=expert, text="   ")
