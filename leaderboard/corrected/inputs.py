"""What a corrected board is computed from: for every response the board's judge scored,
the judge's verdicts, and for the round's labelled responses the experts' majority verdicts
on the same criteria.

A response is labelled when it is one of the round's sampled (not reference) items, the
board judged it on the rubric version the round froze, and every criterion of that version
has a majority of at least the round's full complement of raters (`raters_per_item`).
Every other judged response is unlabelled. Five queries whatever the size (six for a
round that keeps every response's chance).

Each judged response also gets the chance the round's design gave it of being drawn (the
estimators weigh by its inverse, `ppi_quantities`): a drawn item's recorded inclusion
probability, and for the others the one chance their group's items share (the system's
when sampled by system, the round's otherwise). Those two designs give every response of a
system one chance, so the weights change no corrected number. A round sampled where the
judge is unsure keeps every response's chance (`ReviewRound.design_chances`, one more
query): those are used, so its unequal chances are weighted, not silently ignored.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, Q

from annotation.models import Criterion, Response, ReviewItem, ReviewRound
from annotation.review_sampling import BY_SYSTEM
from annotation.selectors.review import current_votes
from leaderboard.boards.selectors.runs import BoardRuns
from leaderboard.boards.selectors.scores import board_case_verdicts
from leaderboard.corrected.assemble import (
    INCOMPLETE,
    NOT_ON_BOARD,
    OTHER_RUBRIC,
    REFERENCE,
    design_probabilities,
    experts_case,
)
from leaderboard.stats.ppi_quantities import ResponsePair


@dataclass
class CorrectedInputs:
    pairs: dict[str, list[ResponsePair]]  # per system name, every judged response
    sampled: int = 0  # the round's items
    labelled: int = 0
    not_labelled: dict[str, int] = field(default_factory=dict)
    design: str = ""


def _frozen_criteria(versions: set[int]) -> dict[int, list[tuple]]:
    criteria: dict[int, list[tuple]] = defaultdict(list)
    for version, *fields in (
        Criterion.objects.filter(rubric_version_id__in=versions)
        .order_by("rubric_version_id", "position")
        .values_list(
            "rubric_version_id",
            "pk",
            "ability__label",
            "ability__category__name_en",
            "weight",
            "is_catastrophic",
        )
    ):
        criteria[version].append(tuple(fields))
    return criteria


def _vote_counts(round_: ReviewRound) -> dict[int, dict[int, tuple[int, int]]]:
    """(votes, hits) per response and criterion, from the round's current votes."""
    counts: dict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    rows = (
        current_votes(round_=round_)
        .values("assignment__item__response_id", "criterion_id")
        .annotate(votes=Count("pk"), hits=Count("pk", filter=Q(hit=True)))
        .order_by()
        .values_list("assignment__item__response_id", "criterion_id", "votes", "hits")
    )
    for response, criterion, votes, hits in rows:
        counts[response][criterion] = (votes, hits)
    return counts


def _design_chances(given: dict, keys) -> dict:
    """The chances a round kept for every response (the uncertainty design), by (system,
    case); a judged response the round did not sample from has none."""
    rows = Response.objects.filter(pk__in=[int(pk) for pk in given]).values_list(
        "pk", "system__name", "case__external_id"
    )
    known = {(system, case): given[str(pk)] for pk, system, case in rows}
    return {key: known.get(key) for key in keys}


def corrected_inputs(*, board: BoardRuns, round_: ReviewRound) -> CorrectedInputs:
    judged, _failed = board_case_verdicts(board=board)
    versions = {
        (system, case): version
        for system, case, version in board.tasks().values_list(
            "system__name", "case__external_id", "rubric_version_id"
        )
    }
    items = list(
        ReviewItem.objects.filter(round=round_).values_list(
            "response_id",
            "rubric_version_id",
            "response__system__name",
            "response__case__external_id",
            "is_reference",
            "inclusion_probability",
        )
    )
    criteria = _frozen_criteria({row[1] for row in items})
    counts = _vote_counts(round_)
    by_key = {(system, case): row for row in items for system, case in [(row[2], row[3])]}

    by_system = round_.sampling == BY_SYSTEM

    def group(system: str):
        return system if by_system else None

    chances = design_probabilities(
        [((row[2], row[3]), group(row[2]), row[5], row[4]) for row in items],
        {
            (system, case.case_id): group(system)
            for system, cases in judged.items()
            for case in cases
        },
    )
    if round_.design_chances:
        chances = _design_chances(round_.design_chances, chances.keys())
    inputs = CorrectedInputs(pairs={}, sampled=len(items), design=round_.sampling)
    not_labelled: dict[str, int] = defaultdict(int)
    seen: set[tuple[str, str]] = set()
    for system, cases in judged.items():
        pairs = inputs.pairs.setdefault(system, [])
        for case in cases:
            key = (system, case.case_id)
            item = by_key.get(key)
            experts = None
            if item is not None:
                seen.add(key)
                response, frozen, _system, _case, reference, _chance = item
                if reference:
                    not_labelled[REFERENCE] += 1
                elif versions.get(key) != frozen:
                    not_labelled[OTHER_RUBRIC] += 1
                else:
                    experts = experts_case(
                        case, criteria[frozen], counts.get(response, {}), round_.raters_per_item
                    )
                    if experts is None:
                        not_labelled[INCOMPLETE] += 1
            pairs.append(ResponsePair(judge=case, experts=experts, probability=chances[key]))
            inputs.labelled += experts is not None
    missing = len(by_key.keys() - seen)
    if missing:
        not_labelled[NOT_ON_BOARD] = missing
    inputs.not_labelled = dict(not_labelled)
    return inputs
