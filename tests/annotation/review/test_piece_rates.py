"""Piece rates set in the app (per round, or an expert's own) give the report amounts."""

import csv
import io
import re
from decimal import Decimal

import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, ExpertProfile
from annotation.selectors.review import expert_reference_accuracy
from annotation.services.review_votes import VoteInput, assignment_submit, reference_answers_set
from core.models import AuditEvent
from tests.annotation.review.test_coordinator_pages import complete_round
from tests.conftest import PASSWORD, client_for

pytestmark = pytest.mark.django_db


def report(client, round_) -> dict[str, list[str]]:
    response = client.get(reverse("review-piece-rate", args=[round_.pk]))
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    return {row[0]: row[1:] for row in rows[1:]}


def test_rates_set_on_the_pages_show_as_amounts(review_round, experts, coordinator):
    client = client_for(coordinator)
    complete_round(review_round, experts[:3], [[True, True, False, False]] * 3)
    # Nothing set: no amount is made up.
    assert report(client, review_round)["exp1"] == ["9", "", "", "CNY"]

    response = client.post(reverse("people-round-rate", args=[review_round.pk]), {"rate": "3.5"})
    assert response.status_code == 302
    response = client.post(
        reverse("people-person", args=[experts[0].pk]),
        {"roles": ["Expert"], "is_active": "on", "specialities": "", "rate": "12.50"},
    )
    assert response.status_code == 302
    rows = report(client, review_round)
    assert rows["exp1"] == ["9", "12.50", "112.50", "CNY"]  # the expert's own rate wins
    assert rows["exp2"] == ["9", "3.50", "31.50", "CNY"]  # the round's rate
    page = client.get(reverse("review-round", args=[review_round.pk])).content.decode()
    assert "112.50" in page and "31.50" in page
    profile = client.get(reverse("people-person", args=[experts[1].pk])).content.decode()
    assert "31.50" in profile
    assert ExpertProfile.objects.get(user=experts[0]).rate_per_item == Decimal("12.50")
    changes = AuditEvent.objects.filter(action="people.rate_changed").order_by("pk")
    assert [e.details["to"] for e in changes] == ["3.50", "12.50"]
    assert changes[0].details["round"] == "R1" and changes[1].details["user"] == "exp1"


def test_a_negative_or_malformed_rate_is_refused(review_round, coordinator, expert):
    client = client_for(coordinator)
    for value in ("-1", "abc", "1e99"):
        response = client.post(
            reverse("people-round-rate", args=[review_round.pk]), {"rate": value}
        )
        assert response.status_code == 302
    review_round.refresh_from_db()
    assert review_round.rate_per_item is None
    assert not AuditEvent.objects.filter(action__startswith="people.").exists()


def test_only_coordinators_set_round_rates(review_round, expert, researcher):
    for user in (expert, researcher):
        response = client_for(user).post(
            reverse("people-round-rate", args=[review_round.pk]), {"rate": "9"}
        )
        assert response.status_code == 403
    review_round.refresh_from_db()
    assert review_round.rate_per_item is None


def test_the_profile_shows_reference_accuracy_and_agreement(review_round, experts, coordinator):
    item = review_round.items.order_by("pk").first()
    criteria = item_criteria_of(item)
    # The reference says the opposite of exp1's pattern on every criterion but the first.
    reference_answers_set(
        item=item,
        answers={
            c.pk: (hit, "") for c, hit in zip(criteria, [True, False, True, True], strict=True)
        },
    )
    complete_round(
        review_round,
        experts[:3],
        [[True, True, False, False], [True, True, False, False], [False, False, True, True]],
    )
    ExpertProfile.objects.update_or_create(user=experts[2], defaults={"specialities": ["职场心理"]})
    page = client_for(coordinator).get(reverse("people-person", args=[experts[2].pk]))
    text = page.content.decode()
    assert page.status_code == 200
    assert "职场心理" in text and "R1" in text
    # exp3 never agrees with the other two; exp1's others split, so no agreement is known.
    assert re.search(r'<td class="num">0%</td>', text)
    other = client_for(coordinator).get(reverse("people-person", args=[experts[0].pk]))
    other_text = other.content.decode()
    assert not re.search(r'<td class="num">\d+%</td>', other_text)
    assert "Accuracy on reference items: 25%" in other_text  # 1 of the 4 criteria right


def item_criteria_of(item):
    return list(item.rubric_version.criteria.order_by("position"))


def test_reference_accuracy_counts_only_the_current_revision(review_round, experts):
    item = review_round.items.order_by("pk").first()
    criteria = item_criteria_of(item)
    reference_answers_set(item=item, answers={c.pk: (True, "") for c in criteria})
    assert expert_reference_accuracy(expert=experts[0]) is None  # nothing compared yet
    complete_round(review_round, experts[:1], [[False, False, False, True]])
    assert expert_reference_accuracy(expert=experts[0]) == 0.25
    # Revised to agree on every criterion: the first revision no longer counts.
    assignment = Assignment.objects.get(expert=experts[0], item=item)
    assignment_submit(
        assignment=assignment,
        votes=[VoteInput(c.pk, True) for c in criteria],
        comment="",
        active_seconds=5,
        base_revision=assignment.revision,
    )
    assert expert_reference_accuracy(expert=experts[0]) == 1.0
    assert expert_reference_accuracy(expert=experts[1].pk) is None


def test_the_currency_is_a_setting_shown_beside_every_amount(review_round, experts, coordinator):
    from django.test import override_settings

    client = client_for(coordinator)
    complete_round(review_round, experts[:3], [[True, True, False, False]] * 3)
    client.post(reverse("people-round-rate", args=[review_round.pk]), {"rate": "3.5"})
    with override_settings(CURRENCY="EUR"):
        assert report(client, review_round)["exp2"] == ["9", "3.50", "31.50", "EUR"]
        page = client.get(reverse("review-round", args=[review_round.pk])).content.decode()
        assert "(EUR)" in page
        profile = client.get(reverse("people-person", args=[experts[1].pk])).content.decode()
        assert "(EUR)" in profile
        form = client.get(reverse("judge-config-new")).content.decode()
        assert "Price per 1k prompt tokens (EUR)" in form


def test_the_piece_rate_report_is_a_streamed_spreadsheet_safe_csv(review_round, coordinator):
    # An expert's name that a spreadsheet would run as a formula is written as text, and the
    # file comes in the dialect of every other CSV download: streamed, lines ending in "\n".
    round_ = review_round
    round_.experts.set([user_create_with_role(username="=1+1", password=PASSWORD, role=EXPERT)])
    round_.rate_per_item = Decimal("2")
    round_.save(update_fields=["rate_per_item"])
    response = client_for(coordinator).get(reverse("review-piece-rate", args=[round_.pk]))
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="piece-rate-' in response["Content-Disposition"]
    body = b"".join(response.streaming_content).decode()
    assert "\r" not in body
    assert body.split("\n")[1:] == ["'=1+1,0,2.00,0.00,CNY", ""]
