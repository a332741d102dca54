"""Blinding over every route an expert can reach: the URL configuration is walked (as the
permission matrix walks it, so a new page or endpoint is checked without being listed here),
and no answer an Expert or a Senior expert gets may carry a system's name, another expert's
vote or note, or anything of the judge's (its reasoning, its configuration's name).

The marks below are planted where a leak would come from: the systems' names, the other
expert's notes and comment on the very item the expert annotates, and the judge's reasoning
on every response of the round."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts.roles import COORDINATOR, EXPERT, SENIOR_EXPERT
from annotation.models import Adjudication, Assignment, System
from annotation.services.review_rounds import round_set_status
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeConfig, JudgeTask, Verdict
from judging.services.judgments_import import judgments_import
from tests.conftest import client_for, jsonl_bytes, lines
from tests.test_permission_matrix import (
    EXPECTED,
    build_url,
    client_as,
    discovered_routes,
    primary_method,
    send,
)

SYSTEM_MARKS = {"Alpha": "Zephyrine-Model-Q7", "Beta": "Obsidian-Model-K4"}
OTHER_NOTE = "note-of-the-other-expert-X91"
OTHER_COMMENT = "comment-of-the-other-expert-X92"
JUDGE_REASON = "judge-overall-reasoning-J55"
JUDGE_CRITERION_REASON = "judge-criterion-reasoning-J56"
JUDGE_NAME = "judge-config-name-J57"


@pytest.fixture
def blind_world(world):
    for old, new in SYSTEM_MARKS.items():
        System.objects.filter(name=old).update(name=new)
    mine = Assignment.objects.select_related("item__rubric_version").get(
        expert=world["users"][EXPERT]
    )
    # The other expert answers the very item the Expert persona holds.
    other, _ = Assignment.objects.get_or_create(
        item=mine.item, expert=world["other_assignment"].expert
    )
    criteria = list(mine.item.rubric_version.criteria.order_by("position"))
    assignment_submit(
        assignment=other,
        votes=[
            VoteInput(criterion_id=c.pk, hit=i % 2 == 0, note=OTHER_NOTE)
            for i, c in enumerate(criteria)
        ],
        comment=OTHER_COMMENT,
        active_seconds=30,
        base_revision=0,
    )
    # A judge run over the other system too, so every response of the round has verdicts.
    verdicts = [
        {"question_id": f"c{i:02d}", "score_detail": [0, 1, 0, 1], "score_reason": "r"}
        for i in range(10)
    ]
    judgments_import(
        chunks=lines(jsonl_bytes(verdicts)),
        benchmark_slug="hb",
        system_name=SYSTEM_MARKS["Beta"],
        judge_name="matrix-judge",
    )
    JudgeTask.objects.update(reasoning=JUDGE_REASON)
    Verdict.objects.update(reasoning=JUDGE_CRITERION_REASON)
    JudgeConfig.objects.update(name=JUDGE_NAME)
    assert Verdict.objects.filter(task__response=mine.item.response).exists()
    return world


_ALL_MARKS = (
    *SYSTEM_MARKS.values(),
    OTHER_NOTE,
    OTHER_COMMENT,
    JUDGE_REASON,
    JUDGE_CRITERION_REASON,
    JUDGE_NAME,
)


# Adjudicating is reading the raters' votes and notes; only the system and the judge stay
# hidden there (and nobody adjudicates an item they rate: the test below).
ADJUDICATION = {"review-adjudication", "review-adjudicate", "api-review-manage-adjudicate"}


def _leaks(body: str, marks=_ALL_MARKS) -> list[str]:
    return [mark for mark in marks if mark in body]


def _body(client: Client, response) -> str:
    # A redirect leads to a page the expert reaches too: read where it goes.
    for _ in range(5):
        location = response.headers.get("Location")
        if response.status_code not in (301, 302, 303) or not location:
            break
        response = client.get(location)
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode("utf-8", errors="replace")


@pytest.mark.parametrize("persona", [EXPERT, SENIOR_EXPERT])
def test_no_answer_an_expert_gets_names_a_system_or_shows_others_or_the_judges_work(
    blind_world, persona
):
    routes, _ = discovered_routes()
    reached, leaks = [], []
    for route in sorted(routes, key=lambda r: r.name):
        if persona not in EXPECTED.get(route.name, ()):
            continue
        url = build_url(route, blind_world)
        method = primary_method(route, url, blind_world)
        client = client_as(persona, blind_world)
        response = send(client, method, url, route.name, blind_world)
        assert response.status_code < 500, (route.name, response.status_code)
        reached.append(route.name)
        marks = _ALL_MARKS
        if route.name in ADJUDICATION:
            marks = tuple(m for m in _ALL_MARKS if m not in (OTHER_NOTE, OTHER_COMMENT))
        found = _leaks(_body(client, response), marks)
        if found:
            leaks.append(f"{route.name} {method} {url}: {found}")
    assert not leaks, "\n" + "\n".join(leaks)
    # The walk did reach the expert's work, not only the pages around it.
    assert {"home", "review-my-work", "api-review-rounds", "rubric-editor"} <= set(reached)
    if persona == EXPERT:
        assert {
            "review-annotate",
            "api-review-assignment",
            "review-submit",
            "review-guidance",
        } <= set(reached)


def test_the_marks_are_seen_where_they_are_allowed(blind_world):
    """The check can fail: every planted mark shows where it belongs. The coordinator's
    pages and the judge's verdicts export show the systems, the notes and the judge's
    work; the other expert's own page shows their comment."""
    routes, _ = discovered_routes()
    seen = set()
    client = client_as(COORDINATOR, blind_world)
    for route in routes:
        if COORDINATOR not in EXPECTED.get(route.name, ()):
            continue
        url = build_url(route, blind_world)
        if primary_method(route, url, blind_world) == "GET":
            seen.update(_leaks(_body(client, send(client, "GET", url, route.name, blind_world))))
    verdicts = reverse("export-download", args=["hb", "verdicts", "csv"])
    for run in JudgeTask.objects.values_list("run_id", flat=True).distinct():
        seen.update(_leaks(_body(client, client.get(verdicts, {"run": run}))))
    other = client_for(blind_world["other_assignment"].expert)
    mine = Assignment.objects.get(expert=blind_world["users"][EXPERT])
    theirs = Assignment.objects.get(item=mine.item, expert=blind_world["other_assignment"].expert)
    seen.update(_leaks(_body(other, other.get(reverse("review-annotate", args=[theirs.pk])))))
    assert seen == set(_ALL_MARKS)


def test_nobody_adjudicates_an_item_they_rate(blind_world):
    """A senior expert who rates an item would see the others' votes on its adjudication
    page before submitting their own: the item is neither in their queue nor open to them."""
    senior = blind_world["users"][SENIOR_EXPERT]
    mine = Assignment.objects.get(expert=blind_world["users"][EXPERT])
    item = mine.item
    # The Expert persona answers against the other expert: the item is split.
    criteria = item.rubric_version.criteria.order_by("position")
    assignment_submit(
        assignment=mine,
        votes=[VoteInput(criterion_id=c.pk, hit=i % 2 == 1) for i, c in enumerate(criteria)],
        comment="",
        active_seconds=30,
        base_revision=0,
    )
    page = reverse("review-adjudicate", args=[item.pk])
    api = reverse("api-review-manage-adjudicate", args=[item.pk])
    queue = reverse("review-adjudication") + f"?round={item.round_id}"
    client = client_as(SENIOR_EXPERT, blind_world)
    assert client.get(page).status_code == 200
    assert page in client.get(queue).content.decode()

    Assignment.objects.create(item=item, expert=senior)
    assert client.get(page).status_code == 404
    assert client.post(page, {"note": "mine"}).status_code == 404
    body = {"criterion": None, "decision": None, "note": "mine"}
    assert client.post(api, body, content_type="application/json").status_code == 404
    assert page not in client.get(queue).content.decode()
    assert not Adjudication.objects.exists()
    # Others may still settle it.
    assert client_as(COORDINATOR, blind_world).get(page).status_code == 200


def test_the_thread_on_a_split_item_opens_only_after_the_round_closes(blind_world):
    """Once the round closes, the raters of a split item discuss it; the thread still names
    no system, shows nothing of the judge's, and not the other rater's notes or comment."""
    mine = Assignment.objects.get(expert=blind_world["users"][EXPERT])
    criteria = mine.item.rubric_version.criteria.order_by("position")
    assignment_submit(
        assignment=mine,
        votes=[VoteInput(criterion_id=c.pk, hit=i % 2 == 1) for i, c in enumerate(criteria)],
        comment="",
        active_seconds=30,
        base_revision=0,
    )
    thread = reverse("review-discussion", args=[mine.item_id])
    client = client_as(EXPERT, blind_world)
    assert client.get(thread).status_code == 404
    round_set_status(round_=blind_world["round"], status="closed")
    response = client.get(thread)
    assert response.status_code == 200
    assert _leaks(_body(client, response)) == []
