"""A review round as it stood at a moment: its items, the chance each had then, which were
reference items and their known answers. What a gate evaluation or a published board read
is told from this, whatever happened to the round since.

Nothing here is a stored copy: the audit log keeps the history. An extension records the
chance every item already there had (`chances_before`) and its fraction before, so the
items at a moment are those of the first extension after it, with those chances. Setting
reference answers records whether the item was a reference item and its answers before,
so the answers at a moment are those the first later change replaced. A round extended
before extensions recorded the chances cannot be told apart as it was: it is read as it
stands (`recorded` False), as it always was."""

from dataclasses import dataclass
from datetime import datetime

from annotation import audit_actions
from annotation.models import Criterion, ReferenceAnswer, ReviewItem, ReviewRound
from core.models import AuditEvent


@dataclass(frozen=True)
class RoundThen:
    fraction: float
    # Per response of an item the round had then: the chance it had been given.
    chances: dict[int, float | None]
    # The responses whose items were reference items then.
    references: frozenset[int]
    # The extensions made by then (their audit details, oldest first).
    extensions: list[dict]
    # False: an extension since did not record the chances before it; read as it stands.
    recorded: bool = True

    def has(self, response_id: int) -> bool:
        return response_id in self.chances


def _events(round_: ReviewRound, action: str):
    return AuditEvent.objects.filter(
        benchmark_id=round_.benchmark_id, action=action, details__round=round_.name
    ).order_by("created", "pk")


def _first_changes_after(round_: ReviewRound, when: datetime) -> dict[str, dict]:
    """Per item code, the details of the first change to its reference answers after
    `when`: what it replaced is what stood then."""
    first: dict[str, dict] = {}
    for details in (
        _events(round_, audit_actions.REFERENCE_SET)
        .filter(created__gt=when)
        .values_list("details", flat=True)
    ):
        first.setdefault(details.get("item", ""), details)
    return first


def round_as_of(*, round_: ReviewRound, when: datetime) -> RoundThen:
    """The round at `when`. Four queries."""
    extensions = list(
        _events(round_, audit_actions.ROUND_EXTENDED)
        .filter(created__gte=round_.created)
        .values_list("created", "details")
    )
    made = [details for created, details in extensions if created <= when]
    later = [details for created, details in extensions if created > when]
    rows = ReviewItem.objects.filter(round=round_).values_list(
        "response_id", "code", "inclusion_probability", "is_reference"
    )
    changed = _first_changes_after(round_, when)
    references = frozenset(
        response
        for response, code, _p, is_reference in rows
        if (changed[code].get("was_reference", False) if code in changed else is_reference)
    )
    if later and "chances_before" not in later[0]:
        # History not kept: the round as it stands, every extension included.
        return RoundThen(
            fraction=round_.fraction,
            chances={response: p for response, _c, p, _r in rows},
            references=references,
            extensions=made + later,
            recorded=False,
        )
    if later:
        chances = {int(pk): p for pk, p in later[0]["chances_before"].items()}
        fraction = later[0].get("from", round_.fraction)
    else:
        chances = {response: p for response, _c, p, _r in rows}
        fraction = round_.fraction
    return RoundThen(
        fraction=fraction,
        chances=chances,
        references=references & chances.keys(),
        extensions=made,
    )


def reference_answers_as_of(*, round_: ReviewRound, when: datetime) -> list[tuple]:
    """(response, question id, system, criterion id, criterion position, hit, explanation) of
    every reference answer the round's items had at `when`, in hand-out order then by
    criterion. Four queries."""
    changed = _first_changes_after(round_, when)
    current: dict[str, list[tuple]] = {}
    for code, criterion, hit, explanation in ReferenceAnswer.objects.filter(
        item__round=round_
    ).values_list("item__code", "criterion_id", "hit", "explanation"):
        current.setdefault(code, []).append((criterion, hit, explanation))
    items = list(
        ReviewItem.objects.filter(round=round_, code__in=set(current) | set(changed)).values_list(
            "code",
            "response_id",
            "response__case__external_id",
            "response__system__name",
            "rubric_version_id",
            "hand_out_rank",
            "pk",
        )
    )
    criteria: dict[int, dict[int, int]] = {}  # rubric version -> position -> criterion
    for pk, version, position in Criterion.objects.filter(
        rubric_version_id__in={row[4] for row in items}
    ).values_list("pk", "rubric_version_id", "position"):
        criteria.setdefault(version, {})[position] = pk
    rows = []
    for code, response, qid, system, version, rank, pk in items:
        by_position = criteria.get(version, {})
        position_of = {criterion: position for position, criterion in by_position.items()}
        if code in changed:
            answers = [
                (by_position[a["criterion"]], a["hit"], a.get("explanation", ""))
                for a in changed[code].get("before", [])
                if a.get("criterion") in by_position
            ]
        else:
            answers = current.get(code, [])
        for criterion, hit, explanation in answers:
            position = position_of[criterion]
            rows.append(
                (
                    (rank, pk, position),
                    (response, qid, system, criterion, position, hit, explanation),
                )
            )
    return [row for _key, row in sorted(rows)]
