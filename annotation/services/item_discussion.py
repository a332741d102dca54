"""Writing to the thread on a split item (see annotation/selectors/item_discussion.py)."""

from django.db import transaction
from django.utils.translation import gettext as _

from annotation.models import ItemDiscussionPost, ReviewItem, ReviewRound

POST_MAX_LENGTH = 5000


class DiscussionPostInvalid(ValueError):
    """The message cannot be posted as written; the text says why."""


class DiscussionUnavailable(Exception):
    """The item's round was reopened: its thread is hidden until it closes again."""


def discussion_post_create(*, item: ReviewItem, author, text: str) -> ItemDiscussionPost:
    text = text.strip()
    if not text:
        raise DiscussionPostInvalid(_("Write a message before posting."))
    if len(text) > POST_MAX_LENGTH:
        raise DiscussionPostInvalid(
            _("A message can be at most %(limit)d characters; this one has %(length)d.")
            % {"limit": POST_MAX_LENGTH, "length": len(text)}
        )
    with transaction.atomic():
        # Locked against a reopen in between: no post is written while votes are cast.
        round_ = ReviewRound.objects.select_for_update().only("status").get(pk=item.round_id)
        if round_.status != ReviewRound.Status.CLOSED:
            raise DiscussionUnavailable
        return ItemDiscussionPost.objects.create(item=item, author=author, text=text)
