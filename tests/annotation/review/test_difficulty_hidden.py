"""Raters do not see whether a case is normal or hard (it could bias them), unless the round
says to show it. The difficulty is left out of what the page and the API are given, not
hidden by the browser."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Case, ReviewRound
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def hard_item_of(round_, expert):
    assignment = assignment_next(expert=expert, round_=round_)
    Case.objects.filter(pk=assignment.item.response.case_id).update(difficulty="hard")
    return assignment


def api_item(expert, assignment) -> dict:
    client = APIClient()
    client.force_authenticate(expert)
    return client.get(reverse("api-review-assignment", args=[assignment.pk])).json()


def test_raters_do_not_see_the_difficulty_by_default(review_round, experts):
    assert review_round.show_difficulty is False
    assignment = hard_item_of(review_round, experts[0])
    page = client_for(experts[0]).get(reverse("review-annotate", args=[assignment.pk]))
    assert page.status_code == 200
    assert page.context["difficulty"] is None
    body = page.content.decode()
    assert "badge hard" not in body and "badge normal" not in body
    assert api_item(experts[0], assignment)["difficulty"] is None


def test_a_round_can_show_the_difficulty(review_data, experts):
    benchmark, systems = review_data
    round_ = round_open(
        benchmark=benchmark,
        name="shown",
        systems=systems,
        experts=experts[:3],
        show_difficulty=True,
    )
    assignment = hard_item_of(round_, experts[0])
    page = client_for(experts[0]).get(reverse("review-annotate", args=[assignment.pk]))
    assert 'class="badge hard"' in page.content.decode()
    assert api_item(experts[0], assignment)["difficulty"] == "hard"


def test_the_setting_is_off_unless_the_coordinator_turns_it_on(review_data, experts, coordinator):
    benchmark, systems = review_data
    client = client_for(coordinator)
    form = client.get(reverse("review-round-new")).content.decode()
    assert (
        'name="show_difficulty"' in form
        and "checked" not in form.split('name="show_difficulty"')[1][:40]
    )
    base = {
        "benchmark": benchmark.pk,
        "systems": [s.pk for s in systems],
        "experts": [e.pk for e in experts[:3]],
        "fraction": "0.3",
        "seed": "7",
        "raters_per_item": "3",
        "max_items_per_expert": "0",
    }
    client.post(reverse("review-round-new"), {**base, "name": "hidden"})
    client.post(reverse("review-round-new"), {**base, "name": "shown", "show_difficulty": "on"})
    assert ReviewRound.objects.get(name="hidden").show_difficulty is False
    assert ReviewRound.objects.get(name="shown").show_difficulty is True

    api = APIClient()
    api.force_authenticate(coordinator)
    url = reverse("api-review-manage-rounds")
    body = {"benchmark": "hb", "systems": ["SecretBeta-70b"], "experts": ["exp1", "exp2", "exp3"]}
    hidden = api.post(url, {**body, "name": "api hidden"}, format="json").json()
    shown = api.post(url, {**body, "name": "api shown", "show_difficulty": True}, format="json")
    assert hidden["show_difficulty"] is False
    assert shown.json()["show_difficulty"] is True
    assert ReviewRound.objects.get(name="api shown").show_difficulty is True
