import csv
import io

import pytest
from django.urls import reverse

from annotation.models import Adjudication, Assignment, ExpertProfile, ReviewRound, Vote
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_votes import VoteInput, assignment_submit
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def complete_round(round_, experts, patterns):
    """Each expert does their whole share with the given verdict pattern."""
    for expert, pattern in zip(experts, patterns, strict=True):
        while (a := assignment_next(expert=expert, round_=round_)) is not None:
            votes = [
                VoteInput(c.pk, hit)
                for c, hit in zip(item_criteria(assignment=a), pattern, strict=True)
            ]
            assignment_submit(
                assignment=a, votes=votes, comment="", active_seconds=5, base_revision=a.revision
            )


def test_a_coordinator_opens_a_round_in_the_browser(review_data, experts, coordinator):
    benchmark, systems = review_data
    response = client_for(coordinator).post(
        reverse("review-round-new"),
        {
            "benchmark": benchmark.pk,
            "name": "Round A",
            "systems": [s.pk for s in systems],
            "experts": [e.pk for e in experts[:3]],
            "fraction": "0.3",
            "seed": "7",
            "raters_per_item": "3",
            "max_items_per_expert": "0",
        },
    )
    round_ = ReviewRound.objects.get(name="Round A")
    assert response["Location"] == reverse("review-round", args=[round_.pk])
    assert round_.items.count() == 9 and round_.seed == 7
    page = client_for(coordinator).get(response["Location"]).content.decode()
    assert "0 of 27 ratings submitted" in page
    assert "Items: 0 done, 0 in progress, 9 untouched (of 9)" in page


def test_dashboard_progress_alerts_consensus_and_piece_rate(review_round, experts, coordinator):
    ExpertProfile.objects.create(user=experts[0], rate_per_item=12.5)
    complete_round(
        review_round,
        experts[:3],
        [[True, True, False, False], [True, True, False, False], [False, False, True, True]],
    )
    client = client_for(coordinator)
    page = client.get(reverse("review-round", args=[review_round.pk])).content.decode()
    assert "27 of 27 ratings submitted" in page
    assert "answered 9 items in less than 20 seconds" in page  # 5 s each
    consensus = client.get(reverse("review-consensus", args=[review_round.pk])).content.decode()
    assert "0 units are ties" in consensus
    rate = client.get(reverse("review-piece-rate", args=[review_round.pk]))
    rows = list(csv.reader(io.StringIO(b"".join(rate.streaming_content).decode())))
    assert rows[0] == ["expert", "completed_items", "rate_per_item", "amount", "currency"]
    assert ["exp1", "9", "12.50", "112.50", "CNY"] in rows


def test_low_agreement_is_an_alert(review_data, experts, coordinator):
    from annotation.services.review_rounds import round_open

    benchmark, systems = review_data
    round_ = round_open(
        benchmark=benchmark, name="four", systems=systems, experts=experts, fraction=0.3
    )
    complete_round(
        round_,
        experts,
        [[True] * 4, [True] * 4, [True] * 4, [False] * 4],
    )
    page = client_for(coordinator).get(reverse("review-round", args=[round_.pk])).content.decode()
    assert "exp4 agrees with the other raters 0% of the time" in page


def test_adjudication_records_a_decision_and_keeps_the_votes(review_round, experts, coordinator):
    complete_round(
        review_round,
        experts[:3],
        [[True, True, False, False], [True, False, False, False], [True, True, True, False]],
    )
    client = client_for(coordinator)
    queue = client.get(
        reverse("review-adjudication"), {"round": review_round.pk, "show": "splits"}
    ).content.decode()
    item = review_round.items.first()
    assert item.code in queue
    before = list(Vote.objects.values_list("pk", "hit"))
    criterion = item.rubric_version.criteria.get(position=2)
    client.post(
        reverse("review-adjudicate", args=[item.pk]),
        {f"decision-{criterion.pk}": "1", f"note-{criterion.pk}": "符合标准", "note": "已讨论"},
    )
    decision = Adjudication.objects.get(item=item, criterion=criterion)
    assert decision.decision is True and decision.note == "符合标准"
    assert list(Vote.objects.values_list("pk", "hit")) == before


def test_guidelines_appear_beside_the_annotation_page(review_round, experts, coordinator):
    client_for(coordinator).post(
        reverse("review-guidelines", args=["hb"]), {"text": "先读完整段对话再判断。"}
    )
    assignment = assignment_next(expert=experts[0], round_=review_round)
    page = client_for(experts[0]).get(reverse("review-annotate", args=[assignment.pk]))
    assert "先读完整段对话再判断。" in page.content.decode()
    assert "Last changed" in page.content.decode()


def test_reference_answers_and_reassignment(review_round, experts, coordinator):
    client = client_for(coordinator)
    item = review_round.items.first()
    criteria = list(item.rubric_version.criteria.order_by("position"))
    data = {f"hit-{c.pk}": "1" for c in criteria}
    data.update({f"explanation-{c.pk}": "说明" for c in criteria})
    client.post(reverse("review-references", args=[item.pk]), data)
    item.refresh_from_db()
    assert item.is_reference and item.references.count() == 4
    review_round.experts.add(experts[3])
    assignment = assignment_next(expert=experts[0], round_=review_round)
    client.post(
        reverse("review-round-action", args=[review_round.pk, "reassign"]),
        {"assignment": assignment.pk, "expert": experts[3].pk},
    )
    assert Assignment.objects.get(pk=assignment.pk).expert == experts[3]


def test_roles_on_the_coordinator_pages(review_round, experts, researcher, outsider):
    urls = [
        reverse("review-rounds"),
        reverse("review-round", args=[review_round.pk]),
        reverse("review-consensus", args=[review_round.pk]),
    ]
    for url in urls:
        assert client_for(None).get(url).status_code == 302
        assert client_for(experts[0]).get(url).status_code == 403
        assert client_for(outsider).get(url).status_code == 403
        assert client_for(researcher).get(url).status_code == 200
    for url in (
        reverse("review-round-new"),
        reverse("review-piece-rate", args=[review_round.pk]),
        reverse("review-guidelines", args=["hb"]),
        reverse("review-adjudication"),
    ):
        assert client_for(researcher).get(url).status_code == 403
    response = client_for(researcher).post(
        reverse("review-round-action", args=[review_round.pk, "close"])
    )
    assert response.status_code == 403
    review_round.refresh_from_db()
    assert review_round.status == "open"
