"""Adjudicating is reading an item's votes and notes: nobody who has read them may rate the
item afterwards, and a round's raters and its adjudicators are different people. A
decision on several criteria is recorded whole or not at all."""

import pytest
from django.urls import reverse

from accounts.roles import SENIOR_EXPERT
from accounts.services import user_create_with_role
from annotation.models import Adjudication, Assignment, Flag, Vote
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import (
    AssignmentRefused,
    assignment_next,
    assignment_reassign,
)
from annotation.services.review_votes import VoteInput, assignment_submit, flag_raise
from tests.conftest import PASSWORD, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def senior(db):
    return user_create_with_role(username="senior", password=PASSWORD, role=SENIOR_EXPERT)


def rate(expert, round_, pattern, note=""):
    assignment = assignment_next(expert=expert, round_=round_)
    votes = [
        VoteInput(c.pk, hit, note)
        for c, hit in zip(item_criteria(assignment=assignment), pattern, strict=True)
    ]
    done, _ = assignment_submit(
        assignment=assignment, votes=votes, comment="", active_seconds=5, base_revision=0
    )
    return done


@pytest.fixture
def split_item(review_round, experts):
    """Two of the three raters have answered the same item, differently, with notes."""
    first = rate(experts[0], review_round, [True, True, False, False], note="看第一句")
    second = rate(experts[1], review_round, [False, True, True, False], note="看第二句")
    assert first.item_id == second.item_id
    return first.item


def test_a_senior_expert_who_read_an_items_votes_is_never_handed_it_to_rate(
    review_round, experts, split_item, senior
):
    client = client_for(senior)
    page = client.get(reverse("review-adjudicate", args=[split_item.pk]))
    assert page.status_code == 200 and "看第二句" in page.content.decode()
    # Later the coordinator adds the senior expert to the round's pool.
    review_round.experts.add(senior)
    with pytest.raises(AssignmentRefused, match="adjudicated"):
        assignment_next(expert=senior, round_=review_round)
    refused = client.post(reverse("review-next", args=[review_round.pk]), follow=True)
    assert "adjudicated" in refused.content.decode()
    # Nor by hand: the unstarted assignment of the third rater cannot move to them.
    third = assignment_next(expert=experts[2], round_=review_round)
    assert third.item_id == split_item.pk
    with pytest.raises(AssignmentRefused, match="adjudicated"):
        assignment_reassign(assignment=third, to_expert=senior)
    assert not Assignment.objects.filter(expert=senior).exists()


def test_a_decision_through_the_api_counts_as_reading_the_votes(review_round, split_item, senior):
    url = reverse("api-review-manage-adjudicate", args=[split_item.pk])
    decided = client_for(senior).post(
        url, {"criterion": None, "note": "看过"}, content_type="application/json"
    )
    assert decided.status_code == 200
    review_round.experts.add(senior)
    with pytest.raises(AssignmentRefused, match="adjudicated"):
        assignment_next(expert=senior, round_=review_round)


def test_the_rounds_raters_do_not_adjudicate_it(review_round, experts, split_item, senior):
    """A rater of the round would read, on another item of the same case, how the others
    judged the criteria they are judging themselves; a pool member who has not started
    yet would be kept from rating."""
    review_round.experts.add(senior)
    other_rater = client_for(experts[2])  # has no assignment yet, but is in the pool
    rated = client_for(experts[0])  # rates this very item
    for client in (client_for(senior), other_rater, rated):
        assert client.get(reverse("review-adjudicate", args=[split_item.pk])).status_code in (
            403,
            404,
        )
    senior_client = client_for(senior)
    api = reverse("api-review-manage-adjudicate", args=[split_item.pk])
    body = {"criterion": None, "note": "看过"}
    assert senior_client.post(api, body, content_type="application/json").status_code == 404
    queue = senior_client.get(reverse("review-adjudication"), {"round": review_round.pk})
    assert split_item.code not in queue.content.decode()
    assert not Adjudication.objects.exists()
    # The senior expert can still rate: they never saw a vote.
    assert assignment_next(expert=senior, round_=review_round) is not None


def test_a_senior_expert_outside_the_round_adjudicates_it(review_round, split_item, senior):
    queue = client_for(senior).get(reverse("review-adjudication"), {"round": review_round.pk})
    assert split_item.code in queue.content.decode()
    assert (
        client_for(senior).get(reverse("review-adjudicate", args=[split_item.pk])).status_code
        == 200
    )


def test_the_decisions_on_every_criterion_are_recorded_together(
    split_item, coordinator, monkeypatch
):
    flag_raise(assignment=split_item.assignments.first(), reason="other", note="看不懂")
    criteria = list(split_item.rubric_version.criteria.order_by("position"))
    form = {"note": "讨论过"}
    for criterion in criteria:
        form[f"decision-{criterion.pk}"] = "1"
        form[f"note-{criterion.pk}"] = f"第{criterion.position}条"
    saves = []
    original = Adjudication.save

    def failing_second_save(self, *args, **kwargs):
        saves.append(self.criterion_id)
        if len(saves) == 2:
            raise RuntimeError("the database went away")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Adjudication, "save", failing_second_save)
    client = client_for(coordinator)
    client.raise_request_exception = False
    failed = client.post(reverse("review-adjudicate", args=[split_item.pk]), form)
    assert failed.status_code == 500
    assert not Adjudication.objects.exists()  # not the first criterion alone
    assert Flag.objects.filter(resolved=False).count() == 1

    monkeypatch.setattr(Adjudication, "save", original)
    done = client.post(reverse("review-adjudicate", args=[split_item.pk]), form)
    assert done.status_code == 302
    recorded = Adjudication.objects.filter(item=split_item)
    assert recorded.filter(criterion__isnull=False).count() == len(criteria)
    assert recorded.get(criterion__isnull=True).note == "讨论过"
    assert not Flag.objects.filter(resolved=False).exists()


def test_an_overlong_adjudication_note_is_refused_and_nothing_is_recorded(split_item, coordinator):
    criteria = list(split_item.rubric_version.criteria.order_by("position"))
    form = {
        f"decision-{criteria[0].pk}": "1",
        f"note-{criteria[0].pk}": "好",
        f"note-{criteria[1].pk}": "长" * 5001,
    }
    before = list(Vote.objects.values_list("pk", "hit"))
    page = client_for(coordinator).post(reverse("review-adjudicate", args=[split_item.pk]), form)
    assert page.status_code == 400
    body = page.content.decode()
    assert "5000" in body and "长" * 5001 in body  # the text is given back, not lost
    assert not Adjudication.objects.exists()
    assert list(Vote.objects.values_list("pk", "hit")) == before


def test_the_adjudication_page_names_raters_by_pseudonym_only(
    review_round, experts, split_item, senior
):
    """Who rated is not the adjudicator's business: a known strict or lenient colleague
    would weigh on the decision."""
    from annotation.selectors.rater_pseudonyms import round_rater_pseudonyms

    body = client_for(senior).get(reverse("review-adjudicate", args=[split_item.pk]))
    text = body.content.decode()
    names = round_rater_pseudonyms(round_=review_round)
    for expert in experts[:2]:
        assert f"{expert.username}:" not in text
        assert f"{names[expert.pk]}:" in text
