"""The rubric health page, its links into the rubric editor with the evidence, the change
note that records it, and the rubric history's health of each version."""

from urllib.parse import parse_qs, urlparse

import pytest
from django.urls import reverse
from django.utils import translation

from accounts.roles import SENIOR_EXPERT
from accounts.services import user_create_with_role
from annotation.models import RubricVersion
from annotation.rubric_edit.evidence import evidence_token
from tests.conftest import client_for
from tests.leaderboard.test_rubric_health import seed

pytestmark = pytest.mark.django_db


def _rows(rubric_version) -> dict:
    """The version's rows as the editor posts them, criterion 2 reworded."""
    criteria = rubric_version.criteria.select_related("ability").order_by("position")
    return {
        "key": [str(c.key) for c in criteria],
        "ability": [c.ability.label for c in criteria],
        "weight": ["" if c.weight is None else str(c.weight) for c in criteria],
        "text": [c.text + ("（至少一个问句）" if c.position == 2 else "") for c in criteria],
    }


def test_the_page_lists_the_flagged_criteria_with_links_into_the_editor(coordinator):
    seed()
    page = client_for(coordinator).get(reverse("rubric-health", args=["hb"]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "3 of 8 criteria flagged for revision." in text
    assert "ambiguous: experts split on it" in text and "the judge misreads it" in text
    assert "does not separate systems" in text
    links = [link for link in page.context["rows"]]
    assert [(item["row"].case, item["row"].position) for item in links] == [
        ("c1", 2),
        ("c2", 1),
        ("c2", 2),
    ]
    editor = urlparse(links[0]["editor"])
    assert editor.path == reverse("rubric-editor", args=["hb", "c1"])
    assert "evidence" in parse_qs(editor.query)
    every = client_for(coordinator).get(reverse("rubric-health", args=["hb"]), {"all": "1"})
    assert len(every.context["rows"]) == 8


def test_the_editor_shows_the_evidence_and_publishing_records_it(coordinator):
    seed()
    page = client_for(coordinator).get(reverse("rubric-health", args=["hb"]))
    link = page.context["rows"][0]["editor"]
    client = client_for(coordinator)
    editor = client.get(link)
    text = editor.content.decode()
    assert "Rubric health evidence" in text
    assert "Rubric health of v1 #2, ambiguous: experts split on it" in text
    assert "experts unanimous on 4 of 6 units" in text
    token = parse_qs(urlparse(link).query)["evidence"][0]
    current = RubricVersion.objects.get(case__external_id="c1")
    answer = client.post(
        reverse("rubric-publish", args=["hb", "c1"]),
        {**_rows(current), "note": "Spelled out what counts as a question", "evidence": token},
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    new = RubricVersion.objects.get(case__external_id="c1", number=2)
    assert new.note.startswith("Spelled out what counts as a question (Rubric health of v1 #2")
    assert "experts unanimous on 4 of 6 units" in new.note


def test_a_forged_or_foreign_evidence_is_neither_shown_nor_recorded(coordinator):
    seed()
    client = client_for(coordinator)
    forged = client.get(reverse("rubric-editor", args=["hb", "c1"]), {"evidence": "made up"})
    assert "Rubric health evidence" not in forged.content.decode()
    # A senior expert works blind to the judge: a link passed on shows them nothing.
    senior = user_create_with_role(username="senior", password="x-pass-123", role=SENIOR_EXPERT)
    case = RubricVersion.objects.get(case__external_id="c1").case
    token = evidence_token("judge disagrees with the majority on 6 of 6", case_id=case.pk)
    shown = client_for(senior).get(reverse("rubric-editor", args=["hb", "c1"]), {"evidence": token})
    assert shown.status_code == 200 and "judge disagrees" not in shown.content.decode()
    # A coordinator sees it on that case's editor, not on another case's.
    here = client.get(reverse("rubric-editor", args=["hb", "c1"]), {"evidence": token})
    assert "judge disagrees with the majority on 6 of 6" in here.content.decode()
    there = client.get(reverse("rubric-editor", args=["hb", "c2"]), {"evidence": token})
    assert "judge disagrees" not in there.content.decode()


def test_the_history_shows_each_criterion_before_and_after_a_revision(coordinator):
    seed()
    client = client_for(coordinator)
    current = RubricVersion.objects.get(case__external_id="c1")
    client.post(
        reverse("rubric-publish", args=["hb", "c1"]),
        {**_rows(current), "note": "Clearer wording"},
    )
    history = client.get(reverse("rubric-history", args=["hb", "c1"])).content.decode()
    fragment_url = reverse("rubric-health-versions", args=["hb", "c1"])
    assert f'hx-get="{fragment_url}"' in history
    fragment = client.get(fragment_url, headers={"HX-Request": "true"})
    assert "<html" not in fragment.content.decode()
    criteria = fragment.context["criteria"]
    ambiguous = next(c for c in criteria if c["current"].position == 2)
    before, after = ambiguous["versions"][1], ambiguous["versions"][0]
    assert (before.version, after.version) == (1, 2)
    assert before.health.flags == ("ambiguous",)
    # Nobody has rated version 2 yet: its measures are undefined (the page says so in one
    # sentence, not a row of "undefined (…) 0/0").
    assert after.health.flags == () and after.health.unanimity.reason == "no_rater_pairs"
    text = fragment.content.decode()
    assert "v1" in text and "v2" in text
    assert "No expert ratings or judge verdicts on this version yet." in text
    full = client.get(fragment_url)
    assert "<html" in full.content.decode()


def test_the_page_reads_in_chinese(coordinator):
    seed()
    client = client_for(coordinator)
    with translation.override("zh-hans"):
        page = client.get(
            reverse("rubric-health", args=["hb"]), {"all": "1"}, HTTP_ACCEPT_LANGUAGE="zh-hans"
        )
    text = page.content.decode()
    assert "评分细则健康度" in text and "被标记为需要修订" in text
    for english in (
        "How criteria are flagged",
        "ambiguous: experts split on it",
        "Experts unanimous",
        "Flagged criteria",
        "criteria flagged for revision",
    ):
        assert english not in text, english


def test_the_page_queries_are_bounded(coordinator, django_assert_num_queries):
    seed()
    client = client_for(coordinator)
    client.get(reverse("rubric-health", args=["hb"]))  # warm the taxonomy names' cache
    # Session, user, permissions (with the roles for the page's header), benchmark; the
    # default judge (published board, gate evaluation, newest run) and the judges to choose
    # from; the report's criteria, votes and verdicts.
    with django_assert_num_queries(11):
        client.get(reverse("rubric-health", args=["hb"]), {"all": "1"})


def test_the_versions_fragment_queries_are_bounded(coordinator, django_assert_num_queries):
    seed()
    client = client_for(coordinator)
    url = reverse("rubric-health-versions", args=["hb", "c1"])
    client.get(url, headers={"HX-Request": "true"})
    # Session, user, permissions, benchmark, case; the default judge (published board, gate
    # evaluation, newest run); the report's criteria, votes and verdicts of every version
    # of the case.
    with django_assert_num_queries(11):
        answer = client.get(url, headers={"HX-Request": "true"})
    assert len(answer.context["criteria"]) == 4


def test_a_long_list_is_cut_and_says_so(coordinator, monkeypatch):
    seed()
    monkeypatch.setattr("leaderboard.rubric_health.views.health.SHOWN", 2)
    page = client_for(coordinator).get(reverse("rubric-health", args=["hb"]))
    assert len(page.context["rows"]) == 2
    assert "The first 2 of 3 criteria are shown" in page.content.decode()


def test_a_browser_gets_the_frame_at_once_and_the_report_by_htmx(
    coordinator, django_assert_max_num_queries
):
    seed()
    client = client_for(coordinator)
    url = reverse("rubric-health", args=["hb"])
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    client.get(url, headers=browser)  # warm the caches
    # The frame computes nothing: session, user, permissions, benchmark.
    with django_assert_max_num_queries(6):
        frame = client.get(url, {"all": "1"}, headers=browser)
    text = frame.content.decode()
    assert 'hx-trigger="load"' in text and f'hx-get="{url}?all=1"' in text
    assert 'class="htmx-indicator" role="status">Computing rubric health…' in text
    assert "criteria flagged for revision" not in text
    assert "report" not in frame.context
    # Without JavaScript, a link asks for the whole page.
    assert '<noscript><p><a href="?all=1&amp;now=1">' in text
    whole = client.get(url, {"all": "1", "now": "1"}, headers=browser).content.decode()
    assert "3 of 8 criteria flagged for revision." in whole and "<html" in whole
    assert 'hx-trigger="load"' not in whole
    part = client.get(url, {"all": "1"}, headers={**browser, "HX-Request": "true"})
    assert "<html" not in part.content.decode()
    assert "3 of 8 criteria flagged for revision." in part.content.decode()
    assert len(part.context["rows"]) == 8
    assert "HX-Request" in frame["Vary"] and "Accept" in frame["Vary"]


def test_the_frame_tells_an_unknown_judge_at_once(coordinator):
    seed()
    answer = client_for(coordinator).get(
        reverse("rubric-health", args=["hb"]), {"judge": "nobody"}, headers={"Accept": "text/html"}
    )
    assert answer.status_code == 404


def test_the_progress_reads_in_chinese(coordinator):
    seed()
    with translation.override("zh-hans"):
        frame = client_for(coordinator).get(
            reverse("rubric-health", args=["hb"]),
            headers={"Accept": "text/html", "Accept-Language": "zh-hans"},
        )
    text = frame.content.decode()
    assert "正在计算评分细则健康度…" in text
    assert "Computing rubric health" not in text and "Show the rubric health" not in text
