"""Recording who has read whose votes. Whoever has an item's votes in front of them (to
adjudicate it, in the round's consensus table, in an export of the round's votes, or in the
item's discussion thread), in whatever role, is recorded against the item; the hand-out
(review_assignment) and the submission (review_votes) honour the records."""

from django.db.models import QuerySet

from annotation.models import Assignment, ReviewItem, ReviewRound, VotesSeen

Via = VotesSeen.Via
# Reading these shows how the round's raters judge (every item, or one as its adjudicator):
# the reader rates nothing more in the round. A thread shows one split item to its own
# raters: their votes on it are frozen, the rest of their work goes on.
ROUND_WIDE = (Via.ADJUDICATION, Via.CONSENSUS, Via.EXPORT)


def item_votes_seen_record(*, item: ReviewItem, user, via: str = Via.ADJUDICATION) -> None:
    """`user` has the item's votes and notes in front of them (idempotent)."""
    if getattr(user, "is_authenticated", False):
        VotesSeen.objects.get_or_create(item=item, user=user, via=via)


def round_votes_seen_record(*, round_: ReviewRound, user, via: str) -> int:
    """`user` has read the votes of the round's items: every item with a submitted set of
    votes at this moment is recorded (idempotent). Returns how many items have votes."""
    if not getattr(user, "is_authenticated", False):
        return 0
    voted = (
        Assignment.objects.filter(item__round=round_, revision__gt=0)
        .values_list("item_id", flat=True)
        .distinct()
    )
    rows = [VotesSeen(item_id=item_id, user=user, via=via) for item_id in voted]
    VotesSeen.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
    return len(rows)


def responses_seen_by(user_id: int) -> QuerySet:
    """Ids of the responses whose votes the user has read, in any round (a subquery)."""
    return VotesSeen.objects.filter(user_id=user_id).values("item__response_id")


def round_votes_read(*, round_id: int, user_id: int) -> bool:
    """Whether the user has read votes of the round's items otherwise than in a thread."""
    return VotesSeen.objects.filter(
        item__round_id=round_id, user_id=user_id, via__in=ROUND_WIDE
    ).exists()


def response_votes_read(*, response_id: int, user_id: int) -> bool:
    return VotesSeen.objects.filter(item__response_id=response_id, user_id=user_id).exists()
