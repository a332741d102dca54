"""Drafting a clarification of a criterion the judge misreads: the action on the rubric
health page, the draft it pre-fills in the rubric editor, the evidence shown beside it (the
disagreeing units and the experts' notes), publishing it as a new version, and who may."""

import pytest
from django.urls import reverse

from accounts.roles import EXPERT, SENIOR_EXPERT
from accounts.services import user_create_with_role
from annotation.models import Criterion, RubricDraft, RubricVersion, Vote
from tests.conftest import client_for
from tests.i18n.pages import untranslated_words
from tests.leaderboard.test_rubric_health import seed

pytestmark = pytest.mark.django_db

NOTE = "The answer restates the feeling but never names it"


def _misread() -> Criterion:
    return Criterion.objects.get(rubric_version__case__external_id="c2", position=2)


def _seed_with_notes() -> Criterion:
    seed()
    criterion = _misread()
    first = Vote.objects.filter(criterion=criterion).order_by("pk").first()
    Vote.objects.filter(pk=first.pk).update(note=NOTE)
    return criterion


def _url(case: str = "c2") -> str:
    return reverse("rubric-clarify", args=["hb", case])


def test_the_action_appears_only_beside_criteria_the_judge_misreads(coordinator):
    seed()
    page = client_for(coordinator).get(reverse("rubric-health", args=["hb"]), {"all": "1"})
    text = page.content.decode()
    assert text.count('class="clarify"') == 1
    assert f'name="criterion" value="{_misread().pk}"' in text
    assert "Draft a clarification" in text
    assert 'name="judge" value="judge"' in text


def test_the_action_prefills_a_draft_with_the_criterion_and_the_evidence_token(coordinator):
    criterion = _seed_with_notes()
    client = client_for(coordinator)
    answer = client.post(_url(), {"criterion": criterion.pk, "judge": "judge"})
    assert answer.status_code == 302
    draft = RubricDraft.objects.get(case__external_id="c2", author=coordinator)
    row = next(r for r in draft.rows if r["key"] == str(criterion.key))
    assert row["text"].startswith(criterion.text)
    assert "Clarification:" in row["text"]
    others = [r["text"] for r in draft.rows if r["key"] != str(criterion.key)]
    assert others == [
        c.text for c in criterion.rubric_version.criteria.order_by("position") if c != criterion
    ]
    editor = client.get(answer["Location"])
    assert editor.status_code == 200
    text = editor.content.decode()
    # The evidence token of rubric health, carried to the publish form.
    assert 'name="evidence"' in text and editor.context["evidence_token"]
    assert "Rubric health of v1 #2, the judge misreads it" in text
    # The side panel: the six disagreeing units, the judge against the experts, the note.
    units = editor.context["clarification"].units
    assert len(units) == 6
    assert all(unit.judge_hit != unit.majority_hit for unit in units)
    assert all(unit.votes == 3 for unit in units)
    assert "Disagreements with the experts" in text and NOTE in text
    assert "嗯" in text  # the responses' excerpts
    # No expert's name on the panel.
    panel = text.split('id="clarify-evidence"')[1].split("</section>")[0]
    for name in ("e0", "e1", "e2"):
        assert f">{name}<" not in panel and f" {name} " not in panel
    # A second click keeps the coordinator's draft and adds no second placeholder.
    client.post(_url(), {"criterion": criterion.pk, "judge": "judge"})
    draft.refresh_from_db()
    row = next(r for r in draft.rows if r["key"] == str(criterion.key))
    assert row["text"].count("Clarification:") == 1


def test_a_criterion_that_is_not_misread_is_refused_with_a_reason(coordinator):
    seed()
    fine = Criterion.objects.get(rubric_version__case__external_id="c2", position=3)
    client = client_for(coordinator)
    answer = client.post(_url(), {"criterion": fine.pk, "judge": "judge"})
    assert answer.status_code == 400
    assert "does not flag" in answer.content.decode()
    assert not RubricDraft.objects.exists()
    assert client.get(_url(), {"criterion": "x"}).status_code == 400
    # A criterion of another case is not this case's.
    assert client.get(_url("c1"), {"criterion": _misread().pk}).status_code == 400


def test_publishing_the_clarification_makes_a_new_version_and_keeps_the_old(coordinator):
    criterion = _seed_with_notes()
    client = client_for(coordinator)
    editor = client.get(client.post(_url(), {"criterion": criterion.pk})["Location"])
    token = editor.context["evidence_token"]
    old = RubricVersion.objects.get(case__external_id="c2", number=1)
    before = list(old.criteria.order_by("position").values_list("text", flat=True))
    draft = RubricDraft.objects.get(case__external_id="c2")
    texts = [
        (r["text"].split("Clarification:")[0] + "Clarification: naming the feeling counts.")
        if r["key"] == str(criterion.key)
        else r["text"]
        for r in draft.rows
    ]
    answer = client.post(
        reverse("rubric-publish", args=["hb", "c2"]),
        {
            "key": [r["key"] for r in draft.rows],
            "ability": [r["ability"] for r in draft.rows],
            "weight": ["" if r["weight"] is None else str(r["weight"]) for r in draft.rows],
            "text": texts,
            "note": "Said what naming the feeling means",
            "evidence": token,
        },
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    new = RubricVersion.objects.get(case__external_id="c2", number=2)
    assert new.note.startswith("Said what naming the feeling means (Rubric health of v1 #2")
    assert new.criteria.get(key=criterion.key).text.endswith("naming the feeling counts.")
    old.refresh_from_db()
    assert list(old.criteria.order_by("position").values_list("text", flat=True)) == before


def test_the_placeholder_cannot_be_published_unedited(coordinator):
    criterion = _seed_with_notes()
    client = client_for(coordinator)
    client.post(_url(), {"criterion": criterion.pk})
    draft = RubricDraft.objects.get(case__external_id="c2")
    answer = client.post(
        reverse("rubric-publish", args=["hb", "c2"]),
        {
            "key": [r["key"] for r in draft.rows],
            "ability": [r["ability"] for r in draft.rows],
            "weight": ["" if r["weight"] is None else str(r["weight"]) for r in draft.rows],
            "text": [r["text"] for r in draft.rows],
            "note": "Clarified",
        },
    )
    assert answer.status_code == 422
    assert "placeholder" in answer.content.decode()
    assert not RubricVersion.objects.filter(case__external_id="c2", number=2).exists()


@pytest.mark.parametrize("role", [EXPERT, SENIOR_EXPERT])
def test_experts_never_reach_the_draft_nor_see_the_action(role):
    criterion = _seed_with_notes()
    user = user_create_with_role(username="blind", password="x-pass-123", role=role)
    client = client_for(user)
    assert client.get(_url(), {"criterion": criterion.pk}).status_code in (403, 404)
    assert client.post(_url(), {"criterion": criterion.pk}).status_code in (403, 404)
    assert not RubricDraft.objects.exists()
    editor = client.get(reverse("rubric-editor", args=["hb", "c2"]))
    assert editor.status_code == 200
    text = editor.content.decode()
    assert NOTE not in text and "Disagreements with the experts" not in text


def test_the_draft_page_reads_in_chinese(coordinator):
    criterion = _seed_with_notes()
    client = client_for(coordinator)
    chinese = {"HTTP_ACCEPT_LANGUAGE": "zh-hans,zh;q=0.9"}
    client.post(_url(), {"criterion": criterion.pk}, **chinese)
    page = client.get(_url(), {"criterion": criterion.pk}, **chinese)
    assert page.status_code == 200
    html = page.content.decode()
    assert '<html lang="zh-hans">' in html
    data = (["hb", "c2", "judge", "coord"], {NOTE, *NOTE.split()})
    words = [w for w in untranslated_words(html, data) if w not in NOTE.split()]
    assert not words, words


def test_a_draft_without_the_criterion_is_left_alone_with_a_reason(coordinator):
    criterion = _seed_with_notes()
    client = client_for(coordinator)
    client.post(_url(), {"criterion": criterion.pk})
    draft = RubricDraft.objects.get(case__external_id="c2")
    kept = [r for r in draft.rows if r["key"] != str(criterion.key)]
    RubricDraft.objects.filter(pk=draft.pk).update(rows=kept)
    answer = client.post(_url(), {"criterion": criterion.pk})
    assert answer.status_code == 400
    assert "no longer has this criterion" in answer.content.decode()
    draft.refresh_from_db()
    assert draft.rows == kept


def test_a_researcher_sees_no_action_and_cannot_draft(researcher):
    criterion = _seed_with_notes()
    client = client_for(researcher)
    page = client.get(reverse("rubric-health", args=["hb"]))
    assert page.status_code == 200 and 'class="clarify"' not in page.content.decode()
    assert client.post(_url(), {"criterion": criterion.pk}).status_code == 403
