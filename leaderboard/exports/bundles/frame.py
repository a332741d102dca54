"""The sampling frame of a round, for its evaluation's bundle: the population of responses
the round sampled from (as it stood when the round opened), each with its stratum and its
inclusion probability, the seed, and the batches the items were drawn in (the opening, then
each extension made by the moment the evidence was read), so that `verify_sample` can
re-derive the sample and the hand-out order.

A round whose items were imported (votes_import) was not sampled here: its frame is its
items, and only the hand-out order is re-derived. When the population as it stood at the
opening cannot be rebuilt so that it gives the round's first batch again (responses or
rubrics were removed since), the frame says so and the sample is not re-derived.

A round sampled where the judge is unsure recorded every response's own chance when it
opened (`ReviewRound.design_chances`, which nothing changes afterwards): its frame is that
population, each response with its chance, drawn or not, so the Poisson draw is re-derived
from the chances and the seed and the corrected board weighs undrawn responses as the site
does."""

from collections import Counter

from django.db.models import Exists, OuterRef
from django.utils import timezone

from annotation import audit_actions
from annotation.models import Response, ReviewItem, ReviewRound, RubricVersion
from annotation.review_sampling import UNCERTAINTY, Unit, stratified_sample
from annotation.selectors.case_history import CaseLabelsThen
from annotation.selectors.round_history import RoundThen, round_as_of
from core.models import AuditEvent
from leaderboard.exports.bundles import layout


def _population(round_: ReviewRound) -> list[tuple]:
    """(response, question, system name, system id, difficulty, primary scene) of each
    response the round could sample when it opened."""
    with_rubric = RubricVersion.objects.filter(case=OuterRef("case"), created__lte=round_.created)
    return list(
        Response.objects.filter(
            case__benchmark=round_.benchmark,
            system__in=round_.systems.all(),
            failed_generation=False,
            created__lte=round_.created,
        )
        .filter(Exists(with_rubric))
        .order_by("pk")
        .values_list(
            "pk",
            "case__external_id",
            "system__name",
            "system_id",
            "case__difficulty",
            "case__scenario__primary",
        )
    )


def _relabelled(rows, labels: CaseLabelsThen) -> list[tuple]:
    """(response, question, system, system id, difficulty, primary scene) rows, each case
    labelled as in `labels`."""
    return [
        (pk, qid, system, system_id, labels.difficulty_of(qid, d), labels.primary_of(qid, p))
        for pk, qid, system, system_id, d, p in rows
    ]


def _batches(round_: ReviewRound, opened, items: int, extensions: list[dict]) -> list[dict]:
    """The opening and each extension made by then: where its hand-out ranks start, its
    fraction and the seeds it was drawn and shuffled with."""
    if opened is None:
        return [{"start": 0, "seed": round_.seed}]
    start = items - sum(int(e.get("added", 0)) for e in extensions)
    batches = [
        {
            "start": 0,
            "seed": round_.seed,
            "draw_seed": opened.details.get("seed", round_.seed),
            "fraction": opened.details.get("fraction"),
        }
    ]
    for details in extensions:
        # An extension draws with the next seed and hands its items out after the first
        # ones, shuffled with the round's seed.
        batches.append(
            {
                "start": start,
                "seed": round_.seed,
                "draw_seed": round_.seed + 1,
                "fraction": details.get("to"),
            }
        )
        start += int(details.get("added", 0))
    return batches


def frame_files(
    round_: ReviewRound,
    items: list[tuple],
    prefix: str,
    then: RoundThen | None = None,
    labels: CaseLabelsThen | None = None,
) -> tuple[dict, dict]:
    """(the frame's file, the "sampling" record of the evaluation). `items`: the round's
    (response id, hand-out rank) as it stood `then` (by default, now); its cases labelled
    as in `labels` (by default, as they are)."""
    if then is None:
        then = round_as_of(round_=round_, when=timezone.now())
    labels = labels or CaseLabelsThen()
    opened = (
        AuditEvent.objects.filter(
            benchmark=round_.benchmark,
            action=audit_actions.ROUND_OPENED,
            details__round=round_.name,
        )
        .order_by("created", "pk")
        .first()
    )
    sampled = {response for response, _rank in items}
    batches = _batches(round_, opened, len(items), then.extensions)
    if round_.sampling == UNCERTAINTY and round_.design_chances:
        return _chances_frame(round_, sampled, batches, prefix, labels)
    population = _relabelled(_population(round_), labels) if opened is not None else []
    first = {r for r, rank in items if rank < (batches[1]["start"] if len(batches) > 1 else 1e18)}
    units = [Unit(row[0], (row[4], row[5] or "", row[3])) for row in population]
    fraction = batches[0].get("fraction")
    reproduced = bool(population) and isinstance(fraction, int | float)
    if reproduced:
        drawn = stratified_sample(units, fraction=fraction, seed=batches[0]["draw_seed"])
        reproduced = set(drawn) == first
    if not reproduced:
        # The frame is the items themselves; only the hand-out order can be re-derived.
        items_then = [
            row
            for row in ReviewItem.objects.filter(round=round_)
            .order_by("response_id")
            .values_list(
                "response_id",
                "response__case__external_id",
                "response__system__name",
                "response__system_id",
                "response__case__difficulty",
                "response__case__scenario__primary",
            )
            if then.has(row[0])
        ]
        population = _relabelled(items_then, labels)
    strata = Counter((row[4], row[5] or "", row[3]) for row in population)
    chosen = Counter((row[4], row[5] or "", row[3]) for row in population if row[0] in first)
    rows = [
        [
            response,
            qid,
            system,
            system_id,
            difficulty,
            scene or "",
            int(response in sampled),
            chosen[(difficulty, scene or "", system_id)]
            / strata[(difficulty, scene or "", system_id)]
            if reproduced
            else "",
        ]
        for response, qid, system, system_id, difficulty, scene in population
    ]
    sampling = {
        "method": "stratified" if reproduced else ("imported" if opened is None else "unknown"),
        "seed": round_.seed,
        "batches": batches,
        "strata": "difficulty, primary scene, system",
        "frame": "population at opening" if reproduced else "the round's items",
    }
    return {prefix + layout.FRAME: layout.csv_bytes(layout.FRAME_FIELDS, rows)}, sampling


def _chances_frame(
    round_: ReviewRound, sampled: set[int], batches: list[dict], prefix: str, labels
):
    """The population as the round recorded it at the opening, each response with the chance
    it was drawn with (`inclusion_probability`) and whether it was (`sampled`). A response
    removed since leaves the draw unrepeatable (the seeded stream runs over every id): the
    frame then says so, and keeps the others' chances for the corrected board."""
    chances = {int(pk): p for pk, p in round_.design_chances.items()}
    population = _relabelled(
        Response.objects.filter(pk__in=chances)
        .order_by("pk")
        .values_list(
            "pk",
            "case__external_id",
            "system__name",
            "system_id",
            "case__difficulty",
            "case__scenario__primary",
        ),
        labels,
    )
    rows = [
        [
            response,
            qid,
            system,
            system_id,
            difficulty,
            scene or "",
            int(response in sampled),
            chances[response],
        ]
        for response, qid, system, system_id, difficulty, scene in population
    ]
    complete = len(rows) == len(chances)
    sampling = {
        "method": "poisson" if complete else "unknown",
        "seed": round_.seed,
        "batches": batches[:1],
        "chances": "each response's own, recorded when the round opened",
        "frame": "population at opening"
        if complete
        else f"population at opening, less {len(chances) - len(rows)} responses removed since",
    }
    return {prefix + layout.FRAME: layout.csv_bytes(layout.FRAME_FIELDS, rows)}, sampling
