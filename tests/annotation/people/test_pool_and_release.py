# ruff: noqa: F811 - pytest fixtures imported from the review tests are arguments here
"""Deactivating an expert gives their unopened items back; coordinators add active experts
to an open round's pool and remove those without work there, from the round page."""

import pytest
from django.urls import reverse

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation import audit_actions
from annotation.models import Assignment, RaterPseudonym
from annotation.services.review_assignment import assignment_next
from core.models import AuditEvent
from tests.annotation.review.conftest import (  # noqa: F401 - the shared fixtures
    experts,
    review_data,
    review_round,
)
from tests.conftest import PASSWORD, client_for

pytestmark = pytest.mark.django_db


def person_form(user, **changes):
    values = {"roles": [EXPERT], "specialities": "", "is_active": "on", "rate": ""}
    values.update(changes)
    return {k: v for k, v in values.items() if v is not None}


def test_deactivating_an_expert_releases_their_unopened_items(review_round, experts, coordinator):
    handed = assignment_next(expert=experts[0], round_=review_round)
    item = handed.item
    item.refresh_from_db()
    assert item.assigned_count == 1
    client = client_for(coordinator)
    page = client.get(reverse("people-person", args=[experts[0].pk])).content.decode()
    assert "Deactivating this account gives its 1 unopened item back to its round" in page
    saved = client.post(
        reverse("people-person", args=[experts[0].pk]),
        person_form(experts[0], is_active=None),
        follow=True,
    )
    assert "1 unopened item went back to its round&#x27;s pool." in saved.content.decode()
    assert not Assignment.objects.filter(pk=handed.pk).exists()
    item.refresh_from_db()
    assert item.assigned_count == 0
    # It is handed out again: the others' work now includes it.
    handed_again = set()
    for expert in experts[1:3]:
        while (a := assignment_next(expert=expert, round_=review_round)) is not None:
            handed_again.add(a.item_id)
            Assignment.objects.filter(pk=a.pk).update(status="submitted")
    assert item.pk in handed_again
    event = AuditEvent.objects.get(action=audit_actions.ASSIGNMENTS_RELEASED)
    assert event.actor == coordinator
    assert event.details == {"user": "exp1", "released": 1}


def test_started_work_is_not_released(review_round, experts, coordinator):
    handed = assignment_next(expert=experts[0], round_=review_round)
    Assignment.objects.filter(pk=handed.pk).update(started=handed.assigned, status="in_progress")
    client_for(coordinator).post(
        reverse("people-person", args=[experts[0].pk]), person_form(experts[0], is_active=None)
    )
    assert Assignment.objects.filter(pk=handed.pk).exists()
    assert not AuditEvent.objects.filter(action=audit_actions.ASSIGNMENTS_RELEASED).exists()


def test_a_coordinator_adds_and_removes_pool_experts(review_round, experts, coordinator):
    client = client_for(coordinator)
    round_page = reverse("review-round", args=[review_round.pk])
    page = client.get(round_page).content.decode()
    newcomer = experts[3]
    assert f'<option value="{newcomer.pk}">exp4</option>' in page
    added = client.post(
        reverse("people-pool-add", args=[review_round.pk]), {"expert": newcomer.pk}, follow=True
    )
    assert "exp4 joined the pool." in added.content.decode()
    assert review_round.experts.filter(pk=newcomer.pk).exists()
    assert RaterPseudonym.objects.filter(user=newcomer, benchmark=review_round.benchmark).exists()
    assert assignment_next(expert=newcomer, round_=review_round) is not None
    again = client.post(
        reverse("people-pool-add", args=[review_round.pk]), {"expert": newcomer.pk}, follow=True
    )
    assert "exp4 is already in the pool." in again.content.decode()

    # exp4 was handed an item but never opened it: removable, and the item goes back.
    removed = client.post(
        reverse("people-pool-remove", args=[review_round.pk, newcomer.pk]), follow=True
    )
    assert "exp4 left the pool; 1 unopened item went back to it." in removed.content.decode()
    assert not review_round.experts.filter(pk=newcomer.pk).exists()
    assert not Assignment.objects.filter(expert=newcomer).exists()
    actions = list(
        AuditEvent.objects.filter(action__startswith="review.pool").values_list("action", "details")
    )
    assert (audit_actions.POOL_EXPERT_ADDED, {"round": "R1", "user": "exp4"}) in actions
    assert (
        audit_actions.POOL_EXPERT_REMOVED,
        {"round": "R1", "user": "exp4", "released": 1},
    ) in actions


def test_pool_changes_are_refused_with_a_reason(review_round, experts, coordinator, researcher):
    client = client_for(coordinator)
    worker = assignment_next(expert=experts[0], round_=review_round)
    Assignment.objects.filter(pk=worker.pk).update(started=worker.assigned, status="in_progress")
    kept = client.post(
        reverse("people-pool-remove", args=[review_round.pk, experts[0].pk]), follow=True
    )
    assert "exp1 has started or submitted work in this round" in kept.content.decode()
    assert review_round.experts.filter(pk=experts[0].pk).exists()
    asleep = user_create_with_role(username="asleep", password=PASSWORD, role=EXPERT)
    asleep.is_active = False
    asleep.save()
    refused = client.post(
        reverse("people-pool-add", args=[review_round.pk]), {"expert": asleep.pk}, follow=True
    )
    assert "asleep&#x27;s account is not active." in refused.content.decode()
    not_expert = client.post(
        reverse("people-pool-add", args=[review_round.pk]), {"expert": researcher.pk}, follow=True
    )
    assert "research does not annotate." in not_expert.content.decode()
    nobody = client.post(reverse("people-pool-add", args=[review_round.pk]), {"expert": "x"})
    assert nobody.status_code == 302
    for user in (researcher, experts[1]):
        assert (
            client_for(user)
            .post(reverse("people-pool-add", args=[review_round.pk]), {"expert": experts[3].pk})
            .status_code
            == 403
        )
    assert not review_round.experts.filter(pk=experts[3].pk).exists()
