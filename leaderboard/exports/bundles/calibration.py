"""The bundled raters' calibration results: for every round of the benchmark with reference
items (calibration rounds, and the hidden checks of other rounds) recorded by the time the
board was published, each bundled rater's votes on the reference answers as they stood
then (answers set or changed since do not count), their agreement and whether it reached
the calibration threshold. Raters are named by their pseudonyms, as in the votes."""

from datetime import datetime

from annotation.models import Assignment, ReviewRound
from annotation.selectors.review import CALIBRATION_THRESHOLD
from annotation.selectors.round_history import reference_answers_as_of
from annotation.selectors.vote_history import votes_as_of

CALIBRATION, HIDDEN_CHECKS = "calibration", "reference_items"


def _round_results(
    round_: ReviewRound, references: list[tuple], names: dict[int, str], when: datetime
) -> list[dict]:
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
    results = []
    for round_ in rounds:
        # Answers set after `when` are not the record; a round without any then has none.
        references = reference_answers_as_of(round_=round_, when=when)
        if references:
            results.extend(_round_results(round_, references, names, when))
    return {"threshold": CALIBRATION_THRESHOLD, "as_of": when.isoformat(), "results": results}
