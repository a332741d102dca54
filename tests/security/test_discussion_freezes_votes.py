"""Attacker's finding 17: an expert read the thread on a split item (it shows how the raters
split) after the round closed; the coordinator reopened the round, and the expert revised
that very item. Once a rater has read the thread, their votes on its item are frozen: the
revision is refused, on the page and in the service, and the votes stay as they were."""

import pytest
from django.urls import reverse

from accounts.roles import COORDINATOR
from annotation.models import ReviewRound, Vote, VotesSeen
from annotation.selectors.review import item_criteria
from annotation.services.review_rounds import round_set_status
from annotation.services.review_votes import VoteInput, VoteRefused, assignment_submit
from tests.annotation.review.conftest import experts, review_data, review_round  # noqa: F401
from tests.conftest import client_for
from tests.security.votes_read import person, rate


def test_a_rater_who_read_the_thread_cannot_revise_the_item_after_a_reopen(
    review_round,  # noqa: F811
    experts,  # noqa: F811
):
    coordinator = person("coord-17", COORDINATOR)
    reader = rate(experts[0], review_round, [True, True, False, False], note="看第一句")
    other = rate(experts[1], review_round, [False, True, True, False], note="看第二句")
    assert reader.item_id == other.item_id
    round_set_status(round_=review_round, status=ReviewRound.Status.CLOSED, user=coordinator)
    thread = client_for(experts[0]).get(reverse("review-discussion", args=[reader.item_id]))
    assert thread.status_code == 200
    assert VotesSeen.objects.filter(user=experts[0], item_id=reader.item_id).exists()
    round_set_status(round_=review_round, status=ReviewRound.Status.OPEN, user=coordinator)

    criteria = item_criteria(assignment=reader)
    flipped = [VoteInput(c.pk, False, "改了") for c in criteria]
    with pytest.raises(VoteRefused, match="discussion"):
        assignment_submit(
            assignment=reader, votes=flipped, comment="", active_seconds=5, base_revision=1
        )
    form = {"base_revision": "1", "active_seconds": "5", "comment": ""}
    form.update({f"hit-{c.pk}": "0" for c in criteria})
    page = client_for(experts[0]).post(
        reverse("review-submit", args=[reader.pk]), form, follow=True
    )
    assert "discussion" in page.content.decode()
    assert set(Vote.objects.filter(assignment=reader).values_list("revision", flat=True)) == {1}
    # A rater who has not read the thread still revises.
    revised, recorded = assignment_submit(
        assignment=other,
        votes=[VoteInput(c.pk, True, "") for c in criteria],
        comment="",
        active_seconds=5,
        base_revision=1,
    )
    assert recorded and revised.revision == 2
