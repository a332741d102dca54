"""How reports and exports name a round's raters (see `RaterPseudonym`)."""

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, Subquery

from annotation.models import Assignment, RaterPseudonym, ReviewRound
from annotation.services.rater_pseudonyms import rater_pseudonyms_assign


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
    """Every rater of the round by user id -> their pseudonym for its benchmark. One query;
    a rater who has none yet (pools are given theirs when a round opens) gets one drawn."""
    rows = list(_raters(round_))
    missing = [pk for pk, name in rows if name is None]
    if missing:
        rater_pseudonyms_assign(benchmark_id=round_.benchmark_id, user_ids=missing)
        rows = list(_raters(round_))
    return dict(rows)
