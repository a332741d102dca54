"""How reports and exports name a round's raters (see `RaterPseudonym`)."""

from datetime import datetime

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, Subquery

from annotation import audit_actions
from annotation.models import Assignment, RaterPseudonym, ReviewRound
from core.models import AuditEvent


def _raters(round_: ReviewRound):
    """(user id, pseudonym or None) of everyone in the round's pool or with work in it (an
    expert removed from the pool still has their votes in the round)."""
    in_pool = ReviewRound.experts.through.objects.filter(
        reviewround_id=round_.pk, user_id=OuterRef("pk")
    )
    has_work = Assignment.objects.filter(item__round_id=round_.pk, expert_id=OuterRef("pk"))
    name = RaterPseudonym.objects.filter(benchmark_id=round_.benchmark_id, user_id=OuterRef("pk"))
    return (
        get_user_model()
        .objects.filter(Q(Exists(in_pool)) | Q(Exists(has_work)))
        .values_list("pk", Subquery(name.values("name")[:1]))
    )


def round_rater_pseudonyms(*, round_: ReviewRound) -> dict[int, str]:
    """Every rater of the round by user id -> their pseudonym for its benchmark. One query,
    and a read only: every way into a round's work (its opening, a pool addition, a votes
    import) gives the rater their pseudonym first."""
    return {pk: name for pk, name in _raters(round_) if name is not None}


def round_rater_pseudonyms_as_of(*, round_: ReviewRound, when: datetime) -> dict[int, str]:
    """The round's raters as they stood at `when` -> their pseudonyms: its pool then (the
    pool as it is, less those added since, plus those taken out since, by the audit log)
    and everyone handed work in it by then. Four queries."""
    first: dict[str, str] = {}
    for action, details in (
        AuditEvent.objects.filter(
            benchmark_id=round_.benchmark_id,
            action__in=[audit_actions.POOL_EXPERT_ADDED, audit_actions.POOL_EXPERT_REMOVED],
            details__round=round_.name,
            created__gt=when,
        )
        .order_by("created", "pk")
        .values_list("action", "details")
    ):
        first.setdefault(details.get("user", ""), action)
    changed = dict(
        get_user_model().objects.filter(username__in=list(first)).values_list("username", "pk")
    )
    pool = set(round_.experts.values_list("pk", flat=True))
    for username, action in first.items():
        if username in changed:
            if action == audit_actions.POOL_EXPERT_ADDED:
                pool.discard(changed[username])
            else:
                pool.add(changed[username])
    worked = Assignment.objects.filter(item__round_id=round_.pk, assigned__lte=when)
    raters = pool | set(worked.values_list("expert_id", flat=True))
    return dict(
        RaterPseudonym.objects.filter(
            benchmark_id=round_.benchmark_id, user_id__in=raters
        ).values_list("user_id", "name")
    )
