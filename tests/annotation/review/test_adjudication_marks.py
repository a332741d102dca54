"""The adjudication item page marks the split criteria and shows the penalty and
catastrophic tags; the queue keeps its filter after a decision; the default view counts an
item's splits as the round view does; the top bar links to adjudication."""

import re

import pytest
from django.urls import reverse

from annotation.models import Flag
from annotation.selectors.review_dashboard import adjudication_queue
from annotation.services.review_votes import flag_raise
from tests.annotation.review.test_adjudication_queue import SPLIT_2_1_CATASTROPHIC
from tests.annotation.review.test_coordinator_pages import complete_round
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def rows_of(page: str) -> list[str]:
    body = page[page.index('<ol class="vote-rows">') :]
    return re.findall(
        r'<li class="vote-row[^"]*".*?</li>\s*(?=<li class="vote-row|</ol>)', body, re.S
    )


def test_the_item_page_marks_split_criteria_and_tags(review_round, experts, coordinator):
    # Criteria 1-3 unanimous, criterion 4 (catastrophic) split 2-1.
    complete_round(review_round, experts[:3], SPLIT_2_1_CATASTROPHIC)
    item = review_round.items.order_by("pk").first()
    page = client_for(coordinator).get(reverse("review-adjudicate", args=[item.pk]))
    assert page.status_code == 200
    rows = rows_of(page.content.decode())
    assert len(rows) == 4
    assert [("split" in row.split(">", 1)[0]) for row in rows] == [False, False, False, True]
    assert "Raters split: 1 of 3 met" in rows[3] or "Raters split: 2 of 3 met" in rows[3]
    assert "catastrophic failure" in rows[3]
    assert "Raters split" not in rows[0]


def test_the_queue_keeps_its_filter_after_a_decision(review_round, experts, coordinator):
    complete_round(review_round, experts[:3], SPLIT_2_1_CATASTROPHIC)
    item = review_round.items.order_by("pk").first()
    client = client_for(coordinator)
    filtered = client.get(
        reverse("review-adjudication"), {"round": review_round.pk, "show": "splits"}
    ).content.decode()
    link = f"{reverse('review-adjudicate', args=[item.pk])}?round={review_round.pk}&amp;show=splits"
    assert link in filtered
    response = client.post(
        f"{reverse('review-adjudicate', args=[item.pk])}?round={review_round.pk}&show=splits",
        {"note": "看过了"},
    )
    assert response.status_code == 302
    assert response["Location"] == (
        f"{reverse('review-adjudication')}?round={review_round.pk}&show=splits"
    )
    # Nonsense in the query is not carried on.
    response = client.post(
        f"{reverse('review-adjudicate', args=[item.pk])}?round=x&show=<b>", {"note": "再看"}
    )
    assert response["Location"] == reverse("review-adjudication")


def test_the_default_view_counts_as_the_round_view(review_round, experts, coordinator):
    complete_round(review_round, experts[:3], SPLIT_2_1_CATASTROPHIC)
    item = review_round.items.order_by("pk").first()
    flag_raise(assignment=item.assignments.first(), reason=Flag.Reason.UNCLEAR_RUBRIC)
    by_round = {e["item"].pk: e for e in adjudication_queue(round_=review_round)}
    default = {e["item"].pk: e for e in adjudication_queue()}
    assert item.pk in default
    for key in ("split_criteria", "tied_criteria", "catastrophic_splits"):
        assert default[item.pk][key] == by_round[item.pk][key]
    assert default[item.pk]["catastrophic_splits"] == 1


def test_the_top_bar_links_to_adjudication_for_coordinators(coordinator):
    page = client_for(coordinator).get(reverse("review-rounds")).content.decode()
    nav = page[page.index("<nav") : page.index("</nav>")]
    assert f'href="{reverse("review-adjudication")}"' in nav
