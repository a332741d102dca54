"""Submitted work stays submitted: an autosave that reaches the server after the submit
(the page's beacon, a slow request) changes nothing; active time cannot run faster than
the clock; notes are held to the same lengths on every path."""

import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, Flag, Vote
from annotation.selectors.review import item_criteria
from annotation.selectors.review_dashboard import round_dashboard
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import (
    VoteInput,
    VoteRefused,
    assignment_autosave,
    assignment_submit,
)
from tests.annotation.review.conftest import assigned_minutes_ago
from tests.conftest import client_for


def page_form(assignment, pattern, *, seconds=12, note="因为") -> dict:
    data = {"base_revision": str(assignment.revision), "active_seconds": str(seconds)}
    data["comment"] = "好"
    for criterion, hit in zip(item_criteria(assignment=assignment), pattern, strict=True):
        if hit is not None:
            data[f"hit-{criterion.pk}"] = "1" if hit else "0"
        data[f"note-{criterion.pk}"] = note
    return data


# The beacon race ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_autosave_arriving_after_the_submit_changes_nothing(review_round, experts):
    client = client_for(experts[0])
    assignment = assignment_next(expert=experts[0], round_=review_round)
    assigned_minutes_ago(assignment)
    partial = page_form(assignment, [True, None, None, None])
    assert client.post(reverse("review-autosave", args=[assignment.pk]), partial).status_code == 200
    full = page_form(assignment, [True, False, True, False])
    submitted = client.post(reverse("review-submit", args=[assignment.pk]), full)
    assert submitted.status_code == 302
    following = Assignment.objects.exclude(pk=assignment.pk).get(expert=experts[0])
    assert submitted["Location"] == reverse("review-annotate", args=[following.pk])
    assignment.refresh_from_db()
    before = (assignment.status, assignment.revision, assignment.draft, assignment.active_seconds)
    assert before[:3] == ("submitted", 1, {})

    # The beacon the page sent as it unloaded, carrying the form as it was.
    late = client.post(reverse("review-autosave", args=[assignment.pk]), full)
    assert late.status_code == 409 and late.json()["saved"] is False
    assignment.refresh_from_db()
    after = (assignment.status, assignment.revision, assignment.draft, assignment.active_seconds)
    assert after == before
    # The expert is not sent back to the item they submitted.
    again = client.post(reverse("review-next", args=[review_round.pk]))
    assert again["Location"] == reverse("review-annotate", args=[following.pk])


@pytest.mark.django_db
def test_an_autosave_that_read_the_item_before_the_submit_does_not_reopen_it(review_round, experts):
    """The interleaving the beacon produced: the autosave request loads the assignment
    (in progress), the submit commits, then the autosave writes."""
    assignment = assignment_next(expert=experts[0], round_=review_round)
    votes = [VoteInput(c.pk, True, "") for c in item_criteria(assignment=assignment)]
    assignment_autosave(assignment=assignment, votes=votes[:1], comment="", active_seconds=1)
    stale = Assignment.objects.select_related("item__round").get(pk=assignment.pk)
    assignment_submit(
        assignment=assignment, votes=votes, comment="", active_seconds=1, base_revision=0
    )
    with pytest.raises(VoteRefused, match="submitted"):
        assignment_autosave(assignment=stale, votes=votes[:1], comment="", active_seconds=60)
    assignment.refresh_from_db()
    assert assignment.status == "submitted" and assignment.draft == {}
    dashboard = round_dashboard(round_=review_round)
    assert (dashboard.in_progress, dashboard.assignments_done) == (1, 1)


def _race_once(assignment_id: int, autosave: dict, submit: dict, errors: list):
    gate = threading.Barrier(2)

    def post(url, body):
        try:
            client = APIClient()
            client.force_authenticate(user=Assignment.objects.get(pk=assignment_id).expert)
            gate.wait(timeout=30)
            response = client.post(url, body, format="json")
            if response.status_code >= 500:
                errors.append(response.status_code)
        except Exception as exc:  # reported to the test thread, which fails
            errors.append(repr(exc))
        finally:
            connection.close()

    threads = [
        threading.Thread(
            target=post, args=(reverse("api-review-autosave", args=[assignment_id]), autosave)
        ),
        threading.Thread(
            target=post, args=(reverse("api-review-submit", args=[assignment_id]), submit)
        ),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)


@pytest.mark.django_db(transaction=True)
def test_autosaves_racing_submits_over_the_api_never_reopen_an_item(review_data):
    if connection.vendor != "postgresql":
        pytest.skip("needs concurrent writers; the PostgreSQL stage of CI runs this")
    benchmark, systems = review_data
    experts = [
        user_create_with_role(username=f"race{i}", password="x-pass-123", role=EXPERT)
        for i in range(4)
    ]
    round_ = round_open(
        benchmark=benchmark, name="race", systems=systems, experts=experts, fraction=1.0
    )
    errors: list = []
    reopened = []
    for attempt in range(40):
        expert = experts[attempt % 4]
        assignment = assignment_next(expert=expert, round_=round_)
        criteria = item_criteria(assignment=assignment)
        votes = [{"criterion": c.pk, "hit": True, "note": ""} for c in criteria]
        draft = {"votes": votes[:1], "comment": "", "active_seconds": 1}
        client = APIClient()
        client.force_authenticate(user=expert)
        client.post(reverse("api-review-autosave", args=[assignment.pk]), draft, format="json")
        submit = {"votes": votes, "comment": "", "active_seconds": 1, "base_revision": 0}
        _race_once(assignment.pk, draft, submit, errors)
        assignment.refresh_from_db()
        if assignment.status != "submitted" or assignment.draft:
            reopened.append(attempt)
    assert errors == []
    assert reopened == []
    assert Assignment.objects.filter(item__round=round_, status="submitted").count() == 40
    assert Vote.objects.filter(assignment__item__round=round_).count() == 40 * 4


# Active time ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_active_time_cannot_run_faster_than_the_clock(review_round, experts):
    client = client_for(experts[0])
    assignment = assignment_next(expert=experts[0], round_=review_round)
    assignment.refresh_from_db()
    started = assignment.assigned
    form = page_form(assignment, [True, None, None, None], seconds=120)
    for _ in range(30):
        client.post(reverse("review-autosave", args=[assignment.pk]), form)
    full = page_form(assignment, [True, True, True, True], seconds=120)
    client.post(reverse("review-submit", args=[assignment.pk]), full)
    elapsed = (timezone.now() - started).total_seconds()
    assignment.refresh_from_db()
    assert assignment.status == "submitted"
    assert assignment.active_seconds <= elapsed + 1
    # So the dashboard still sees an item answered too fast.
    assert round_dashboard(round_=review_round).experts[0].fast_items == 1


@pytest.mark.django_db
def test_active_time_is_credited_up_to_the_time_since_the_previous_save(review_round, experts):
    assignment = assignment_next(expert=experts[0], round_=review_round)
    assigned_minutes_ago(assignment, minutes=10)
    votes = [VoteInput(c.pk, None, "") for c in item_criteria(assignment=assignment)]
    saved = assignment_autosave(assignment=assignment, votes=votes, comment="", active_seconds=90)
    assert saved.active_seconds == 90  # ten minutes passed: 90 s of work are plausible
    saved = assignment_autosave(assignment=saved, votes=votes, comment="", active_seconds=90)
    assert saved.active_seconds <= 91  # a second later: at most a second more


# Note lengths ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_pages_refuse_notes_longer_than_the_api_takes(review_round, experts):
    client = client_for(experts[0])
    assignment = assignment_next(expert=experts[0], round_=review_round)
    long_note = page_form(assignment, [True, None, None, None], note="长" * 5001)
    saved = client.post(reverse("review-autosave", args=[assignment.pk]), long_note)
    assert saved.status_code == 400 and "5000" in saved.json()["error"]
    long_comment = page_form(assignment, [True, None, None, None])
    long_comment["comment"] = "长" * 10001
    saved = client.post(reverse("review-autosave", args=[assignment.pk]), long_comment)
    assert saved.status_code == 400 and "10000" in saved.json()["error"]
    assignment.refresh_from_db()
    assert assignment.draft == {} and assignment.status == "assigned"

    full = page_form(assignment, [True, True, True, True], note="长" * 5001)
    page = client.post(reverse("review-submit", args=[assignment.pk]), full)
    assert page.status_code == 422 and "5000" in page.content.decode()
    assert not Vote.objects.exists()

    flag_url = reverse("review-flag", args=[assignment.pk])
    flagged = client.post(flag_url, {"reason": "other", "note": "长" * 5001}, follow=True)
    assert "5000" in flagged.content.decode()
    assert not Flag.objects.exists()
    # At the limit, it is kept.
    client.post(flag_url, {"reason": "other", "note": "长" * 5000})
    assert len(Flag.objects.get().note) == 5000


@pytest.mark.django_db
def test_a_nine_megabyte_note_is_not_stored(review_round, experts):
    client = Client()
    client.force_login(experts[0])
    assignment = assignment_next(expert=experts[0], round_=review_round)
    form = page_form(assignment, [True, None, None, None], note="")
    first = item_criteria(assignment=assignment)[0]
    form[f"note-{first.pk}"] = "x" * (9 * 1024 * 1024)
    response = client.post(reverse("review-autosave", args=[assignment.pk]), form)
    assert response.status_code == 400
    assignment.refresh_from_db()
    assert assignment.draft == {}
