"""A judge version's gate history, read from the database for leaderboard.gate.history:
every review round of the benchmark, up to the one being evaluated, whose responses the
version's finished runs judged in full, each with its per-item tallies.

Whether anyone recorded an evaluation on a round does not matter: a round the version
was judged on counts, so a failure cannot be hidden by not recording it."""

from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.db.models import Q

from annotation.models import Assignment, ReviewItem, ReviewRound
from judging.models import JudgeRun, JudgeVersion
from leaderboard.evidence.selectors.holdout import calibration_responses, derived_on_round
from leaderboard.gate.history import RoundTallies, round_tallies
from leaderboard.report.agreement import Unit
from leaderboard.report.selectors.agreement import agreement_units, round_tasks
from leaderboard.selection.calibration_guard import held_out

# Whoever holds this permission can open a judge run and read its verdicts.
VERDICT_READERS = ("judging", "view_judgerun")


def round_raters_read_verdicts(*, round_: ReviewRound) -> bool:
    """Whether anyone who rated in the round could read the judge's verdicts (by role or
    by a permission of their own). One query."""
    app_label, codename = VERDICT_READERS
    raters = Assignment.objects.filter(
        item__round=round_, status=Assignment.Status.SUBMITTED
    ).values("expert_id")
    readers = (
        Q(is_superuser=True)
        | Q(
            groups__permissions__codename=codename,
            groups__permissions__content_type__app_label=app_label,
        )
        | Q(
            user_permissions__codename=codename,
            user_permissions__content_type__app_label=app_label,
        )
    )
    return get_user_model().objects.filter(readers, pk__in=raters).exists()


def round_ranks(*, round_: ReviewRound) -> dict[int, int]:
    return dict(ReviewItem.objects.filter(round=round_).values_list("response_id", "hand_out_rank"))


def tallies_of(
    *,
    round_: ReviewRound,
    units: Sequence[Unit],
    ranks=None,
    unequal_chances=None,
    weights: Sequence[float] | None = None,
) -> RoundTallies:
    """`unequal_chances` and the units' `weights` (the inverse of their response's chance)
    as the caller already knows them (None: read from the round)."""
    if unequal_chances is None:
        chances = round_chances(round_=round_)
        unequal_chances = chances is not None and len(set(chances.values())) > 1
        if unequal_chances:
            weights = [1.0 / chances[unit.response] for unit in units]
    return round_tallies(
        units,
        round_ranks(round_=round_) if ranks is None else ranks,
        round_id=round_.pk,
        name=round_.name,
        raters_per_item=round_.raters_per_item,
        raters_read_verdicts=round_raters_read_verdicts(round_=round_),
        unequal_chances=unequal_chances,
        weights=weights,
    )


def round_chances(*, round_: ReviewRound) -> dict[int, float] | None:
    """Each response's recorded chance in the round; None when some item has none (a round
    sampled before they were recorded), as the agreement report reads them
    (selectors.agreement.sampling_weights). One query."""
    chances = dict(
        ReviewItem.objects.filter(round=round_).values_list("response_id", "inclusion_probability")
    )
    return chances if chances and all(chances.values()) else None


def _earlier_rounds(round_: ReviewRound):
    return (
        ReviewRound.objects.filter(benchmark_id=round_.benchmark_id, is_calibration=False)
        .filter(Q(created__lt=round_.created) | Q(created=round_.created, pk__lt=round_.pk))
        .order_by("created", "pk")
    )


def version_history(
    *,
    version: JudgeVersion,
    round_: ReviewRound,
    units: Sequence[Unit],
    ranks=None,
    unequal_chances=None,
    weights: Sequence[float] | None = None,
) -> list[RoundTallies]:
    """The version's rounds, oldest first, ending with `round_` (whose `units` are given):
    each earlier round whose responses the version's finished runs judged in full."""
    earlier_rounds = list(_earlier_rounds(round_))
    runs = list(JudgeRun.objects.finished().of_judge(version)) if earlier_rounds else []
    history = []
    for earlier in earlier_rounds if runs else ():
        items = ReviewItem.objects.filter(round=earlier).count()
        tasks = round_tasks(round_=earlier, runs=runs)
        if not items or len(tasks) < items:
            continue
        found = agreement_units(round_=earlier, runs=runs, tasks=tasks)
        if derived_on_round(version, earlier):
            # The round the version was built from counts by its held-out part only.
            found = held_out(found, calibration_responses(round_=earlier), items=items).units
        history.append(tallies_of(round_=earlier, units=found))
    history.append(
        tallies_of(
            round_=round_,
            units=units,
            ranks=ranks,
            unequal_chances=unequal_chances,
            weights=weights,
        )
    )
    return history


def rated_in_round(*, user, round_: ReviewRound) -> bool:
    """Whether `user` submitted ratings in the round."""
    return Assignment.objects.filter(
        item__round=round_, expert_id=user.pk, status=Assignment.Status.SUBMITTED
    ).exists()
