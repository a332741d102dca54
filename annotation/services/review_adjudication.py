"""Adjudication: a senior expert (or coordinator) reads an item's votes and records
decisions beside them. Reading them is recorded too: whoever has read a round's votes is
never handed its items to rate."""

from annotation.models import ReviewItem, VotesSeen


def item_votes_seen_record(*, item: ReviewItem, user) -> None:
    """`user` has the item's votes and notes in front of them (idempotent)."""
    VotesSeen.objects.get_or_create(item=item, user=user)
