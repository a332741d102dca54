"""After a round closes, the raters of a split item discuss it in a thread on the item.
Before that the thread does not exist for anyone (blinding holds while votes are cast);
only the item's own raters and the coordinators read or write it."""

import pytest
from django.urls import reverse

from accounts.roles import RESEARCHER
from accounts.services import user_create_with_role
from annotation.models import Assignment, ItemDiscussionPost
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_set_status
from annotation.services.review_votes import VoteInput, assignment_submit
from tests.annotation.review.conftest import SYSTEM_NAMES
from tests.conftest import PASSWORD, client_for

pytestmark = pytest.mark.django_db

THIRD_NOTE = "note-of-the-third-rater-N7"


def rate(assignment, hits, note=""):
    criteria = item_criteria(assignment=assignment)
    votes = [VoteInput(c.pk, hit, note) for c, hit in zip(criteria, hits, strict=True)]
    assignment_submit(
        assignment=assignment, votes=votes, comment="", active_seconds=5, base_revision=0
    )


@pytest.fixture
def split_item(review_round, experts):
    """One item rated by three experts: 2-1 on the first criterion, unanimous elsewhere;
    and a second item all three agree on."""
    first = assignment_next(expert=experts[0], round_=review_round)
    item = first.item
    second = Assignment.objects.create(item=item, expert=experts[1])
    third = Assignment.objects.create(item=item, expert=experts[2])
    rate(first, [True, True, False, False])
    rate(second, [True, True, False, False])
    rate(third, [False, True, False, False], note=THIRD_NOTE)
    agreed = Assignment.objects.create(
        item=review_round.items.exclude(pk=item.pk).first(), expert=experts[0]
    )
    rate(agreed, [True, True, False, False])
    for expert in experts[1:3]:
        rate(Assignment.objects.create(item=agreed.item, expert=expert), [True, True, False, False])
    return item, agreed.item


def close(round_):
    round_set_status(round_=round_, status="closed")


def test_no_thread_while_the_round_is_open(split_item, experts, coordinator):
    item, _ = split_item
    url = reverse("review-discussion", args=[item.pk])
    for user in (experts[0], experts[2], coordinator):
        assert client_for(user).get(url).status_code == 404
        assert client_for(user).post(url, {"text": "early"}).status_code == 404
    assert not ItemDiscussionPost.objects.exists()


def test_after_close_the_raters_and_coordinators_discuss_a_split_item(
    split_item, review_round, experts, coordinator
):
    item, agreed = split_item
    close(review_round)
    url = reverse("review-discussion", args=[item.pk])
    page = client_for(experts[2]).get(url)
    assert page.status_code == 200
    body = page.content.decode()
    criterion = item.rubric_version.criteria.get(position=1)
    assert criterion.text in body
    assert "2 of 3 raters said hit" in body
    # The rubric's comments for the case, where a wording problem belongs.
    case = item.response.case
    assert reverse("rubric-editor", args=["hb", case.external_id]) + "#comments" in body

    posted = client_for(experts[2]).post(url, {"text": "我认为第1条没有做到。"})
    post = ItemDiscussionPost.objects.get()
    assert posted["Location"] == f"{url}#post-{post.pk}"
    assert (post.item, post.author) == (item, experts[2])
    client_for(coordinator).post(url, {"text": "Please look at the guideline."})
    reply = client_for(experts[0]).get(url).content.decode()
    assert "我认为第1条没有做到。" in reply and "Please look at the guideline." in reply
    assert f'id="post-{post.pk}"' in reply

    # The thread exists only for a split item, and only for its raters and coordinators.
    assert (
        client_for(experts[0]).get(reverse("review-discussion", args=[agreed.pk])).status_code
        == 404
    )
    assert client_for(experts[3]).get(url).status_code == 404
    researcher = user_create_with_role(username="r", password=PASSWORD, role=RESEARCHER)
    assert client_for(researcher).get(url).status_code == 403


def test_the_thread_keeps_systems_judges_and_names_hidden(split_item, review_round, experts):
    item, _ = split_item
    close(review_round)
    url = reverse("review-discussion", args=[item.pk])
    client_for(experts[2]).post(url, {"text": "mine"})
    body = client_for(experts[0]).get(url).content.decode()
    for name in SYSTEM_NAMES:
        assert name not in body
    # Raters appear under their pseudonyms, never by account name; their notes stay theirs.
    assert experts[2].username not in body.replace(experts[0].username, "")
    assert THIRD_NOTE not in body


def test_a_bad_post_writes_nothing_and_says_why(split_item, review_round, experts):
    item, _ = split_item
    close(review_round)
    url = reverse("review-discussion", args=[item.pk])
    empty = client_for(experts[0]).post(url, {"text": "   "})
    assert empty.status_code == 400 and "Write a message" in empty.content.decode()
    long = client_for(experts[0]).post(url, {"text": "x" * 5001})
    assert long.status_code == 400 and "5000" in long.content.decode()
    assert not ItemDiscussionPost.objects.exists()


def test_reopening_the_round_hides_the_thread_again(split_item, review_round, experts):
    item, _ = split_item
    close(review_round)
    url = reverse("review-discussion", args=[item.pk])
    client_for(experts[0]).post(url, {"text": "before reopening"})
    round_set_status(round_=review_round, status="open")
    assert client_for(experts[0]).get(url).status_code == 404
    assert client_for(experts[0]).post(url, {"text": "after"}).status_code == 404
    assert ItemDiscussionPost.objects.count() == 1


def test_raters_find_their_threads(split_item, review_round, experts, coordinator):
    item, agreed = split_item
    url = reverse("review-discussion", args=[item.pk])
    assert url not in client_for(experts[0]).get(reverse("review-my-work")).content.decode()
    close(review_round)
    mine = client_for(experts[0]).get(reverse("review-my-work")).content.decode()
    assert url in mine
    assert reverse("review-discussion", args=[agreed.pk]) not in mine
    submitted = reverse("review-my-submitted", args=[review_round.pk])
    assert url in client_for(experts[0]).get(submitted).content.decode()
    assert url not in client_for(experts[3]).get(reverse("review-my-work")).content.decode()
    round_page = reverse("review-round", args=[review_round.pk])
    assert url in client_for(coordinator).get(round_page).content.decode()


def test_the_page_reads_in_a_bounded_number_of_queries(
    split_item, review_round, experts, django_assert_max_num_queries
):
    item, _ = split_item
    close(review_round)
    url = reverse("review-discussion", args=[item.pk])
    client = client_for(experts[0])
    for i in range(5):
        client.post(url, {"text": f"post {i}"})
        client_for(experts[1 + i % 2]).post(url, {"text": f"reply {i}"})
    with django_assert_max_num_queries(14):
        assert client.get(url).status_code == 200
