"""Shared set-up of the votes-seen tests: experts who rate, and a split item."""

from django.contrib.auth.models import Group

from accounts.services import user_create_with_role
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_votes import VoteInput, assignment_submit
from tests.conftest import PASSWORD


def person(username: str, *roles: str):
    """A user with every one of `roles` (the first made with the account)."""
    user = user_create_with_role(username=username, password=PASSWORD, role=roles[0])
    user.groups.add(*Group.objects.filter(name__in=roles[1:]))
    return user


def rate(expert, round_, pattern=None, note: str = ""):
    """The expert's next item, submitted with `pattern` (alternating hits by default)."""
    assignment = assignment_next(expert=expert, round_=round_)
    if assignment is None:
        return None
    criteria = item_criteria(assignment=assignment)
    hits = pattern or [i % 2 == 0 for i in range(len(criteria))]
    votes = [VoteInput(c.pk, hit, note) for c, hit in zip(criteria, hits, strict=True)]
    done, _ = assignment_submit(
        assignment=assignment, votes=votes, comment="", active_seconds=5, base_revision=0
    )
    return done
