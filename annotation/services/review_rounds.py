"""Opening and steering review rounds."""

import datetime as dt
from collections.abc import Mapping, Sequence

from django.db import connection, transaction
from django.utils.translation import gettext as _

from annotation import audit_actions
from annotation.models import Benchmark, Guideline, Response, ReviewItem, ReviewRound, System
from annotation.review_sampling import (
    BY_SYSTEM,
    DESIGNS,
    UNCERTAINTY,
    Unit,
    equal_per_system_sample,
    hand_out_order,
    inclusion_probabilities,
    poisson_sample,
    stratified_sample,
)
from annotation.review_split import calibration_split
from annotation.selectors.round_work import round_work_in_progress
from annotation.selectors.rubrics import latest_version_id_subquery
from annotation.services.rater_pseudonyms import rater_pseudonyms_assign
from annotation.services.round_pool import assignments_release
from core.audit import AuditAction
from core.audit.services import audit_record

Status = ReviewRound.Status


class RoundInvalid(Exception):
    pass


def _units(round_: ReviewRound):
    return population_units(benchmark=round_.benchmark, systems=round_.systems.all())


def population_units(*, benchmark: Benchmark, systems) -> tuple[list[Unit], dict[int, int]]:
    """The responses a round of these systems samples from (a case without a rubric cannot
    be reviewed), and each one's case's current rubric version."""
    rows = (
        Response.objects.filter(
            case__benchmark=benchmark,
            system__in=systems,
            failed_generation=False,
        )
        .annotate(version_id=latest_version_id_subquery("case"))
        .values_list("pk", "case__difficulty", "case__scenario__primary", "system_id", "version_id")
    )
    versions = {}
    units = []
    for pk, difficulty, scenario, system, version in rows:
        if version is None:
            continue  # a case without a rubric cannot be reviewed
        versions[pk] = version
        # Strata by primary scene: secondary scenes are often one case each, too fine to
        # draw a share from.
        units.append(Unit(pk, (difficulty, scenario or "", system)))
    return units, versions


def _add_items(
    round_: ReviewRound,
    *,
    fraction: float,
    seed: int,
    given: Mapping[int, float] | None = None,
) -> int:
    units, versions = _units(round_)
    already = set(round_.items.values_list("response_id", flat=True))
    if round_.sampling == UNCERTAINTY:
        probability = _given_probabilities(units, given)
        chosen = poisson_sample(probability, seed=seed, exclude=already)
        round_.design_chances = {str(pk): p for pk, p in sorted(probability.items())}
        round_.save(update_fields=["design_chances"])
    elif round_.sampling == BY_SYSTEM:
        chosen = equal_per_system_sample(
            units, fraction=fraction, seed=seed, system_of=_system_of, exclude=already
        )
        stratum_of = _system_of
    else:
        chosen = stratified_sample(units, fraction=fraction, seed=seed, exclude=already)
        stratum_of = _whole
    if round_.sampling != UNCERTAINTY:
        probability = inclusion_probabilities(units, already | set(chosen), stratum_of=stratum_of)
    # Items added by an extension are handed out after the first ones, shuffled as well.
    ranks = hand_out_order(chosen, seed=round_.seed, start=len(already))
    # Items added by an extension are split by the same share, drawn apart from the first.
    calibration = calibration_split(
        chosen, share=round_.calibration_share, seed=_split_seed(round_) + len(already)
    )
    ReviewItem.objects.bulk_create(
        [
            ReviewItem(
                round=round_,
                response_id=pk,
                rubric_version_id=versions[pk],
                hand_out_rank=ranks[pk],
                part=_part(round_, pk in calibration),
                inclusion_probability=probability.get(pk),
            )
            for pk in chosen
        ]
    )
    # An extension raises the chance of the items already there too.
    changed = []
    for item in round_.items.filter(response_id__in=already).only("pk", "response_id"):
        item.inclusion_probability = probability.get(item.response_id)
        changed.append(item)
    ReviewItem.objects.bulk_update(changed, ["inclusion_probability"], batch_size=1000)
    return len(chosen)


def _given_probabilities(units: list[Unit], given: Mapping[int, float] | None) -> dict[int, float]:
    """The chances the caller computed, one in (0, 1] for every response of the population:
    a response left out, or given no chance, would have no inverse weight."""
    population = {unit.response_id for unit in units}
    given = dict(given or {})
    if set(given) != population:
        raise RoundInvalid(
            _("The sampling chances must name every response of the round's systems, once.")
        )
    if any(not 0 < p <= 1 for p in given.values()):
        raise RoundInvalid(_("Every sampling chance must be more than 0 and at most 1."))
    return given


def _system_of(stratum) -> int:
    return stratum[2]


def _whole(stratum) -> None:
    """The proportional design gives every response the same chance, up to how one
    item's rounding falls in each stratum (drawn by lot): one share for all."""
    return None


def _split_seed(round_: ReviewRound) -> int:
    return round_.seed if round_.split_seed is None else round_.split_seed


def _part(round_: ReviewRound, calibration: bool) -> str:
    if not round_.calibration_share:
        return ReviewItem.Part.NONE
    return ReviewItem.Part.CALIBRATION if calibration else ReviewItem.Part.HELD_OUT


def round_open(
    *,
    benchmark: Benchmark,
    name: str,
    systems: Sequence[System],
    experts: Sequence,
    fraction: float = 0.3,
    seed: int = 20251,
    raters_per_item: int = 3,
    max_items_per_expert: int = 0,
    deadline: dt.date | None = None,
    is_calibration: bool = False,
    show_difficulty: bool = False,
    close_when_decided: bool = False,
    calibration_share: float = 0.0,
    split_seed: int | None = None,
    sampling: str = "proportional",
    probabilities: Mapping[int, float] | None = None,
    chances_from: dict | None = None,
    user=None,
) -> ReviewRound:
    """Sample the responses (stratified by difficulty, scenario and system, reproducible from
    the seed), freeze each sampled case's current rubric version, and draw the pool's
    pseudonyms for the benchmark. Items are handed out in an order shuffled by the seed.
    With a `calibration_share`, the items are split there and then into a calibration part
    and a held-out part (annotation.review_split), from `split_seed` (by default the seed).
    `sampling` "by_system" draws the same number of items from every system instead of the
    same share of every stratum; either way each item keeps its inclusion probability.
    `sampling` "uncertainty" takes the chances as given (`probabilities`, one per response
    of the systems, worked out by whoever knows what makes a response worth a look) and
    draws each response on its own from the seed (Poisson sampling)."""
    name = name.strip()
    if not name:
        raise RoundInvalid(_("Give the round a name."))
    if ReviewRound.objects.filter(name=name).exists():
        raise RoundInvalid(_("A round named “%(name)s” already exists.") % {"name": name})
    if not 0 < fraction <= 1:
        raise RoundInvalid(_("The sampling fraction must be more than 0 and at most 1."))
    if raters_per_item < 1:
        raise RoundInvalid(_("An item needs at least one rater."))
    if sampling not in DESIGNS:
        raise RoundInvalid(
            _("Unknown sampling design “%(design)s”: use proportional or by_system.")
            % {"design": sampling}
        )
    if (sampling == UNCERTAINTY) != (probabilities is not None):
        raise RoundInvalid(_("Chances are given with the uncertainty design, and only with it."))
    if not 0 <= calibration_share <= 1:
        raise RoundInvalid(_("The calibration share must be at least 0 and at most 1."))
    if len(experts) < raters_per_item:
        raise RoundInvalid(
            _("%(raters)d raters per item need at least %(raters)d experts in the pool.")
            % {"raters": raters_per_item}
        )
    with transaction.atomic():
        round_ = ReviewRound.objects.create(
            benchmark=benchmark,
            name=name,
            fraction=fraction,
            seed=seed,
            sampling=sampling,
            raters_per_item=raters_per_item,
            max_items_per_expert=max_items_per_expert,
            deadline=deadline,
            is_calibration=is_calibration,
            show_difficulty=show_difficulty,
            close_when_decided=close_when_decided,
            calibration_share=calibration_share,
            split_seed=(seed if split_seed is None else split_seed) if calibration_share else None,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        round_.systems.set(systems)
        round_.experts.set(experts)
        if not _add_items(round_, fraction=fraction, seed=seed, given=probabilities):
            raise RoundInvalid(_("The sample is empty: these systems have no responses."))
        _item_statistics_refresh()
        rater_pseudonyms_assign(
            benchmark_id=benchmark.pk, user_ids=[expert.pk for expert in experts]
        )
        audit_record(
            actor=user,
            action=audit_actions.ROUND_OPENED,
            benchmark=benchmark,
            details={
                "round": round_.name,
                "items": round_.items.count(),
                "experts": sorted(expert.get_username() for expert in experts),
                "fraction": fraction,
                "seed": seed,
                "sampling": sampling,
                "raters_per_item": raters_per_item,
                "close_when_decided": close_when_decided,
                "calibration_share": calibration_share,
                "split_seed": round_.split_seed,
                # Where given chances came from (e.g. the judge runs), for the record.
                **({"chances_from": chances_from} if chances_from else {}),
            },
        )
    return round_


def _item_statistics_refresh() -> None:
    """Experts ask for items the moment a round opens, a minute before autovacuum would
    gather statistics on its items: planned as if the round were empty, each claim sorted
    the round once per candidate (16 ms of PostgreSQL's time instead of under one)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {ReviewItem._meta.db_table}")


def round_extend(*, round_: ReviewRound, fraction: float, user=None) -> int:
    """Grow the sample to `fraction` of the responses, keeping every item already there."""
    if fraction <= round_.fraction:
        raise RoundInvalid(_("Extend to a larger fraction than the round has now."))
    if round_.status == Status.CLOSED:
        raise RoundInvalid(_("Reopen the round before extending it."))
    if round_.sampling == UNCERTAINTY:
        # Its chances came from a judge's run when it opened; growing it would need them
        # again, worked out for the larger fraction.
        raise RoundInvalid(
            _("A round sampled where the judge is unsure cannot be extended: open a new one.")
        )
    with transaction.atomic():
        # The chance each item had until now, which the extension raises: what a board
        # published before it read (annotation.selectors.round_history).
        before = {
            str(response): chance
            for response, chance in round_.items.order_by("response_id").values_list(
                "response_id", "inclusion_probability"
            )
        }
        added = _add_items(round_, fraction=fraction, seed=round_.seed + 1)
        _item_statistics_refresh()
        ReviewRound.objects.filter(pk=round_.pk).update(fraction=fraction)
        audit_record(
            actor=user,
            action=audit_actions.ROUND_EXTENDED,
            benchmark=round_.benchmark,
            details={
                "round": round_.name,
                "from": round_.fraction,
                "to": fraction,
                "added": added,
                "chances_before": before,
            },
        )
    # The caller's copy says what the round now is (a second extension records its start).
    round_.fraction = fraction
    return added


def _status_action(before: str, after: str) -> AuditAction:
    if after == Status.CLOSED:
        return audit_actions.ROUND_CLOSED
    if after == Status.PAUSED:
        return audit_actions.ROUND_PAUSED
    return audit_actions.ROUND_REOPENED if before == Status.CLOSED else audit_actions.ROUND_RESUMED


def round_set_status(
    *,
    round_: ReviewRound,
    status: str,
    user=None,
    release_unstarted: bool = False,
    because: str = "",
) -> AuditAction | None:
    """Open, pause, close or reopen the round; None when it already had that status.

    Closing stops the work under way (started items can no longer be submitted, nothing
    more is handed out): the audit event keeps what was stopped. With `release_unstarted`
    (closing early, once the sequential test has decided), the items handed out but never
    opened are given back too. Reopening hands out the items still short of raters again
    and lets started items be submitted."""
    with transaction.atomic():
        locked = ReviewRound.objects.select_for_update().get(pk=round_.pk)
        if locked.status == status:
            return None
        if locked.status == Status.CLOSED and status == Status.PAUSED:
            raise RoundInvalid(_("A closed round is reopened, not paused."))
        work = round_work_in_progress(round_=locked)
        ReviewRound.objects.filter(pk=locked.pk).update(status=status)
        action = _status_action(locked.status, status)
        details = {"round": locked.name, "from": locked.status, "to": status}
        if action in (audit_actions.ROUND_CLOSED, audit_actions.ROUND_REOPENED):
            details |= {
                "started_not_submitted": len(work.started),
                "unstarted": work.unstarted,
                "items_short_of_raters": work.short_items,
            }
        if action == audit_actions.ROUND_CLOSED and release_unstarted:
            details["released"] = assignments_release(round_=locked)
        if because:
            details["because"] = because
        audit_record(actor=user, action=action, benchmark=locked.benchmark, details=details)
    round_.status = status
    return action


def guideline_save(*, benchmark: Benchmark, text: str, user) -> Guideline:
    """Save the benchmark's guidelines; a change is in the audit log with the text before
    and after (what the experts read is evidence)."""
    text = text.strip()
    with transaction.atomic():
        before = Guideline.objects.filter(benchmark=benchmark).values_list("text", flat=True)
        before = next(iter(before), None)
        guideline, _created = Guideline.objects.update_or_create(
            benchmark=benchmark, defaults={"text": text, "updated_by": user}
        )
        if before != text:
            audit_record(
                actor=user,
                action=audit_actions.GUIDELINES_SAVED,
                benchmark=benchmark,
                details={"from": before or "", "to": text},
            )
    return guideline
