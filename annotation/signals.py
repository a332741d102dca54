"""Signals annotation sends so that apps above it can react without annotation importing
them (apps import downward only)."""

from django.db import transaction
from django.dispatch import Signal

# Sent once the ratings of a round have changed and the change is committed (a submission,
# an adjudication). Keyword argument: round_id.
round_ratings_changed = Signal()


def round_ratings_changed_on_commit(round_id: int) -> None:
    transaction.on_commit(
        lambda: round_ratings_changed.send(sender="annotation", round_id=round_id)
    )
