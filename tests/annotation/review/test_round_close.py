"""Closing a round asks for confirmation and shows what it stops; a closed round reopens;
every step is in the audit log."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation import audit_actions
from annotation.models import ReviewRound
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_votes import VoteInput, assignment_submit
from core.models import AuditEvent
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def start_some_work(round_, experts):
    """exp1 submits one item and starts another; exp2 is handed an item and never opens it."""
    first = assignment_next(expert=experts[0], round_=round_)
    votes = [VoteInput(c.pk, True) for c in item_criteria(assignment=first)]
    assignment_submit(
        assignment=first, votes=votes, comment="", active_seconds=5, base_revision=first.revision
    )
    started = assignment_next(expert=experts[0], round_=round_)
    started.started = started.assigned
    started.status = "in_progress"
    started.save()
    assignment_next(expert=experts[1], round_=round_)
    return started


def test_closing_shows_the_work_it_stops_and_needs_confirmation(review_round, experts, coordinator):
    started = start_some_work(review_round, experts)
    client = client_for(coordinator)
    close_url = reverse("review-round-close", args=[review_round.pk])
    # The round page offers a link to the confirmation, not a one-click close.
    page = client.get(reverse("review-round", args=[review_round.pk])).content.decode()
    assert f'href="{close_url}"' in page
    # An old one-click form post does not close: it gets the confirmation page.
    old = client.post(reverse("review-round-action", args=[review_round.pk, "close"]))
    assert old.status_code == 400 and "I understand that this work stops" in old.content.decode()
    review_round.refresh_from_db()
    assert review_round.status == "open"

    confirm = client.get(close_url).content.decode()
    assert "1 item started but not submitted" in confirm
    assert "1 item handed out but not opened yet" in confirm
    assert "9 items still short of raters (26 ratings missing)" in confirm
    assert started.item.code in confirm and "exp1" in confirm

    unconfirmed = client.post(close_url, {})
    assert unconfirmed.status_code == 400
    review_round.refresh_from_db()
    assert review_round.status == "open"

    closed = client.post(close_url, {"confirm": "yes"})
    assert closed["Location"] == reverse("review-round", args=[review_round.pk])
    review_round.refresh_from_db()
    assert review_round.status == "closed"
    event = AuditEvent.objects.get(action=audit_actions.ROUND_CLOSED)
    assert event.actor == coordinator and event.benchmark == review_round.benchmark
    assert event.details == {
        "round": "R1",
        "from": "open",
        "to": "closed",
        "started_not_submitted": 1,
        "unstarted": 1,
        "items_short_of_raters": 9,
    }


def test_a_closed_round_reopens_and_hands_out_again(review_round, experts, coordinator):
    start_some_work(review_round, experts)
    client = client_for(coordinator)
    client.post(reverse("review-round-close", args=[review_round.pk]), {"confirm": "yes"})
    page = client.get(reverse("review-round", args=[review_round.pk])).content.decode()
    assert "Reopen the round" in page and "Close the round…" not in page
    reopened = client.post(
        reverse("review-round-action", args=[review_round.pk, "reopen"]), follow=True
    )
    assert "Round reopened: its 9 items short of raters are handed out again" in (
        reopened.content.decode()
    )
    review_round.refresh_from_db()
    assert review_round.status == "open"
    assert assignment_next(expert=experts[2], round_=review_round) is not None
    event = AuditEvent.objects.get(action=audit_actions.ROUND_REOPENED)
    assert event.actor == coordinator and event.details["from"] == "closed"


def test_only_coordinators_close_reopen_and_extend(review_round, experts, researcher):
    close_url = reverse("review-round-close", args=[review_round.pk])
    for user in (researcher, experts[0]):
        client = client_for(user)
        assert client.get(close_url).status_code == 403
        assert client.post(close_url, {"confirm": "yes"}).status_code == 403
        for action in ("reopen", "extend"):
            url = reverse("review-round-action", args=[review_round.pk, action])
            assert client.post(url, {"fraction": "0.6"}).status_code == 403
    review_round.refresh_from_db()
    assert review_round.status == "open" and review_round.fraction == 0.3
    assert not AuditEvent.objects.filter(action__startswith="review.round_c").exists()


def test_round_steps_are_audited(review_round, experts, coordinator):
    client = client_for(coordinator)
    action = lambda name, **data: client.post(  # noqa: E731
        reverse("review-round-action", args=[review_round.pk, name]), data
    )
    action("pause")
    action("open")
    action("extend", fraction="0.5")
    handed = assignment_next(expert=experts[0], round_=review_round)
    action("reassign", assignment=handed.pk, expert=experts[2].pk)
    events = {
        e.action: e.details
        for e in AuditEvent.objects.filter(action__startswith="review.").order_by("pk")
    }
    assert events[audit_actions.ROUND_OPENED]["items"] == 9
    assert events[audit_actions.ROUND_OPENED]["experts"] == ["exp1", "exp2", "exp3"]
    assert events[audit_actions.ROUND_PAUSED]["to"] == "paused"
    assert events[audit_actions.ROUND_RESUMED]["to"] == "open"
    assert events[audit_actions.ROUND_EXTENDED]["added"] > 0
    assert events[audit_actions.ASSIGNMENT_MOVED] == {
        "round": "R1",
        "item": handed.item.code,
        "from": "exp1",
        "to": "exp3",
    }
    assert AuditEvent.objects.get(action=audit_actions.ROUND_PAUSED).actor == coordinator


def test_the_api_closes_only_with_confirmation(review_round, experts, coordinator):
    start_some_work(review_round, experts)
    client = APIClient()
    client.force_authenticate(coordinator)
    url = reverse("api-review-manage-round-status", args=[review_round.pk])
    refused = client.post(url, {"status": "closed"}, format="json")
    assert refused.status_code == 409
    assert refused.json()["started_not_submitted"] == 1
    assert refused.json()["items_short_of_raters"] == 9
    assert ReviewRound.objects.get(pk=review_round.pk).status == "open"
    closed = client.post(url, {"status": "closed", "confirm": True}, format="json")
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    paused = client.post(url, {"status": "paused"}, format="json")
    assert paused.status_code == 400
    assert paused.json()["detail"] == "A closed round is reopened, not paused."
    reopened = client.post(url, {"status": "open"}, format="json")
    assert reopened.json()["status"] == "open"
    actions = list(
        AuditEvent.objects.filter(actor=coordinator).order_by("pk").values_list("action", flat=True)
    )
    assert actions == [audit_actions.ROUND_CLOSED, audit_actions.ROUND_REOPENED]
