"""The bundled raters' calibration results: for every round of the benchmark with reference
items (calibration rounds, and the hidden checks of other rounds) recorded by the time the
board was published, each bundled rater's votes on the reference answers as they stood
then, their agreement and whether it reached the calibration threshold. Raters are named
by their pseudonyms, as in the votes."""

from datetime import datetime

from annotation.models import Assignment, ReferenceAnswer, ReviewRound
from annotation.selectors.review import CALIBRATION_THRESHOLD
from annotation.selectors.vote_history import votes_as_of

CALIBRATION, HIDDEN_CHECKS = "calibration", "reference_items"


def _round_results(round_: ReviewRound, names: dict[int, str], when: datetime) -> list[dict]:
    references = list(
        ReferenceAnswer.objects.filter(item__round=round_)
        .order_by("item__hand_out_rank", "item_id", "criterion__position")
        .values_list(
            "item__response_id",
            "item__response__case__external_id",
            "item__response__system__name",
            "criterion_id",
            "criterion__position",
            "hit",
            "explanation",
        )
    )
    votes = {
        (response, criterion, expert): hit
        for response, criterion, expert, hit in votes_as_of(round_=round_, when=when)
    }
    # Who had work in the round then: votes written by then, or an item handed out by then.
    raters = {expert for _, _, expert in votes if expert in names} | set(
        Assignment.objects.filter(
            item__round=round_, expert_id__in=list(names), assigned__lte=when
        ).values_list("expert_id", flat=True)
    )
    results = []
    for expert in sorted(raters, key=lambda pk: names[pk]):
        answers = [
            {
                "question_id": qid,
                "system": system,
                "criterion": position,
                "rater_hit": int(votes[(response, criterion, expert)]),
                "reference_hit": int(hit),
                "explanation": explanation,
            }
            for response, qid, system, criterion, position, hit, explanation in references
            if (response, criterion, expert) in votes
        ]
        agreed = sum(a["rater_hit"] == a["reference_hit"] for a in answers)
        agreement = agreed / len(answers) if answers else None
        results.append(
            {
                "round": round_.name,
                "kind": CALIBRATION if round_.is_calibration else HIDDEN_CHECKS,
                "rater": names[expert],
                "reference_answers": len(references),
                "complete": bool(references) and len(answers) == len(references),
                "agreement": agreement,
                "passed": agreement is not None and agreement >= CALIBRATION_THRESHOLD,
                "answers": answers,
            }
        )
    return results


def calibration_record(benchmark, names: dict[int, str], when: datetime) -> dict:
    """`names`: the bundled raters' pseudonyms by user id; `when`: the publication."""
    rounds = (
        ReviewRound.objects.filter(
            benchmark=benchmark, created__lte=when, items__references__isnull=False
        )
        .distinct()
        .order_by("created", "pk")
    )
    return {
        "threshold": CALIBRATION_THRESHOLD,
        "as_of": when.isoformat(),
        "results": [row for round_ in rounds for row in _round_results(round_, names, when)],
    }
