"""How reports and exports name a round's raters (see `RaterPseudonym`)."""

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, Subquery

from annotation.models import Assignment, RaterPseudonym, ReviewRound


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
