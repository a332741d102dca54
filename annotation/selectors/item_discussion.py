"""Reads for the thread on a split item: who may see it, what the raters split on, the posts.

A thread exists only for an item of a closed round on which the submitted votes split on at
least one criterion (2-1, or a tie): while a round is open, raters must not learn how the
others judged, so every reader here answers 404 then, whoever asks."""

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404

from annotation.models import Assignment, ItemDiscussionPost, ReviewItem, ReviewRound, Vote
from annotation.selectors.rater_pseudonyms import round_rater_pseudonyms
from core.permissions import Perm

CLOSED = ReviewRound.Status.CLOSED


@dataclass(frozen=True)
class SplitCriterion:
    position: int
    text: str
    hits: int
    votes: int
    yours: bool | None  # the reader's own verdict, None for a coordinator


@dataclass(frozen=True)
class ItemDiscussion:
    item: ReviewItem
    splits: list[SplitCriterion]
    is_rater: bool


@dataclass(frozen=True)
class Post:
    pk: int
    author: str
    is_mine: bool
    text: str
    created: object


def _current_votes() -> QuerySet[Vote]:
    return Vote.objects.current()


def _split_item_ids(votes: QuerySet[Vote]) -> list[int]:
    """The items among `votes` whose raters disagree on at least one criterion."""
    hits: dict[tuple[int, int], list[bool]] = defaultdict(list)
    for item_id, criterion_id, hit in votes.values_list(
        "assignment__item_id", "criterion_id", "hit"
    ):
        hits[(item_id, criterion_id)].append(hit)
    return sorted({item for (item, _), h in hits.items() if len(h) > 1 and 0 < sum(h) < len(h)})


def item_discussion_get(user, item_id: int) -> ItemDiscussion:
    """The split item `user` may discuss, or 404: its round must be closed, and `user` one of
    its raters (a submitted assignment) or a coordinator."""
    item = get_object_or_404(
        ReviewItem.objects.select_related("round", "response__case__benchmark"),
        pk=item_id,
        round__status=CLOSED,
    )
    rows = list(
        _current_votes()
        .filter(assignment__item=item)
        .values_list("criterion__position", "criterion__text", "hit", "assignment__expert_id")
        .order_by("criterion__position")
    )
    is_rater = any(expert_id == user.pk for *_, expert_id in rows)
    if not (is_rater or user.has_perm(Perm.MANAGE_REVIEW)):
        raise Http404
    by_criterion: dict[tuple[int, str], list[tuple[bool, int]]] = defaultdict(list)
    for position, text, hit, expert_id in rows:
        by_criterion[(position, text)].append((hit, expert_id))
    splits = []
    for (position, text), votes in by_criterion.items():
        hits = sum(hit for hit, _ in votes)
        if len(votes) > 1 and 0 < hits < len(votes):
            yours = next((hit for hit, expert_id in votes if expert_id == user.pk), None)
            splits.append(SplitCriterion(position, text, hits, len(votes), yours))
    if not splits:
        raise Http404
    return ItemDiscussion(item=item, splits=splits, is_rater=is_rater)


def discussion_posts(*, item: ReviewItem, reader) -> list[Post]:
    """The thread, oldest first. Raters appear under their pseudonym for the benchmark (as
    in reports and exports), so a rater learns what was said, not who said it; anyone else
    who posts (a coordinator) under their account name."""
    pseudonyms = round_rater_pseudonyms(round_=item.round)
    posts = ItemDiscussionPost.objects.filter(item=item).values_list(
        "pk", "author_id", "author__username", "text", "created"
    )
    return [
        Post(
            pk=pk,
            author=pseudonyms.get(author_id) or username,
            is_mine=author_id == reader.pk,
            text=text,
            created=created,
        )
        for pk, author_id, username, text, created in posts
    ]


def _split_items(votes: QuerySet[Vote]) -> list[ReviewItem]:
    return list(
        ReviewItem.objects.filter(pk__in=_split_item_ids(votes))
        .select_related("round")
        .only("pk", "code", "round__name", "round__status")
        .annotate(posts=Count("discussion_posts"))
        .order_by("round_id", "pk")
    )


def discussions_for_rater(*, expert) -> list[ReviewItem]:
    """The split items of closed rounds that `expert` rated, with how many posts each has."""
    rated = Assignment.objects.filter(
        expert=expert, status=Assignment.Status.SUBMITTED, item__round__status=CLOSED
    ).values("item_id")
    return _split_items(_current_votes().filter(assignment__item_id__in=rated))


def discussions_of_round(*, round_: ReviewRound) -> list[ReviewItem]:
    """A closed round's split items, with how many posts each has; none while it is open."""
    if round_.status != CLOSED:
        return []
    return _split_items(_current_votes().filter(assignment__item__round=round_))
