"""The evidence beside a draft clarification of a criterion the judge misreads: the units
(response, criterion, in one round) where the judge's verdict opposes the experts'
majority, each with the response, the verdicts and the experts' notes, and the notes of
the other units. Experts appear by their vote only, never by name: the coordinator weighs
reasons, not people."""

from collections import defaultdict
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from annotation.consensus import has_majority, majority_hit
from annotation.models import Benchmark, Case, Response, Vote
from judging.models import JudgeVersion
from leaderboard.rubric_health.selectors.health import (
    CriterionHealth,
    judge_verdicts,
    rubric_health,
)
from leaderboard.stats.criterion_health import JUDGE_MISREADS

EXCERPT = 400  # characters of a response or a dialogue turn
SHOWN_UNITS = 20
SHOWN_NOTES = 30


class NotMisread(Exception):
    """The criterion is not one the judge misreads here; the message says why."""


@dataclass(frozen=True)
class ExpertNote:
    hit: bool  # the expert's vote
    text: str


@dataclass(frozen=True)
class DisagreeingUnit:
    round_name: str
    response: str  # an excerpt
    judge_hit: bool
    votes: int
    hits: int
    notes: list[ExpertNote] = field(default_factory=list)

    @property
    def majority_hit(self) -> bool:
        return majority_hit(self.votes, self.hits)


@dataclass(frozen=True)
class Clarification:
    row: CriterionHealth
    judge: JudgeVersion
    last_turn: str  # the dialogue's turn the responses answer, an excerpt
    units: list[DisagreeingUnit]  # the first SHOWN_UNITS
    disagreeing: int  # all of them
    other_notes: list[ExpertNote]  # notes on units where the judge agrees, or with no majority


def _excerpt(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"


def _misread_row(benchmark: Benchmark, case: Case, criterion: int, judge: str):
    report = rubric_health(benchmark=benchmark, case=case, judge=judge)
    row = next((row for row in report.criteria if row.pk == criterion), None)
    if row is None:
        raise NotMisread(
            _("Criterion %(pk)s is not in the newest rubric version of %(case)s.")
            % {"pk": criterion, "case": case.external_id}
        )
    if JUDGE_MISREADS not in row.health.flags or report.judge is None:
        raise NotMisread(
            _(
                "Rubric health does not flag criterion #%(position)d of %(case)s as misread "
                "by this judge."
            )
            % {"position": row.position, "case": case.external_id}
        )
    return row, report.judge


def clarification_evidence(
    *, benchmark: Benchmark, case: Case, criterion: int, judge: str = ""
) -> Clarification:
    """The evidence for clarifying `criterion` (a criterion's id, of the case's newest
    version) against the named judge (the benchmark's default without a name). Raises
    NotMisread unless rubric health flags it as misread, and JudgeNotFound for an unknown
    judge."""
    row, judge_version = _misread_row(benchmark, case, criterion, judge)
    ballots: dict[tuple[int, int], list[ExpertNote]] = defaultdict(list)
    names: dict[int, str] = {}
    for round_id, round_name, response, hit, note in (
        Vote.objects.current()
        .filter(criterion_id=row.pk)
        .order_by("assignment__item__round_id", "assignment__item__response_id", "pk")
        .values_list(
            "assignment__item__round_id",
            "assignment__item__round__name",
            "assignment__item__response_id",
            "hit",
            "note",
        )
    ):
        names[round_id] = round_name
        ballots[(round_id, response)].append(ExpertNote(hit=hit, text=note.strip()))
    verdicts = judge_verdicts(benchmark, case, {row.pk}, judge_version).get(row.pk, {})
    found: list[tuple[int, int, bool, list[ExpertNote]]] = []
    other_notes: list[ExpertNote] = []
    for (round_id, response), ballot in ballots.items():
        votes, hits = len(ballot), sum(n.hit for n in ballot)
        judged = verdicts.get(response)
        if has_majority(votes, hits) and judged and judged[1] != majority_hit(votes, hits):
            found.append((round_id, response, judged[1], ballot))
        else:
            other_notes += [n for n in ballot if n.text]
    texts = dict(
        Response.objects.filter(pk__in=[r for _, r, _, _ in found[:SHOWN_UNITS]]).values_list(
            "pk", "text"
        )
    )
    units = [
        DisagreeingUnit(
            round_name=names[round_id],
            response=_excerpt(texts.get(response, "")),
            judge_hit=judge_hit,
            votes=len(ballot),
            hits=sum(n.hit for n in ballot),
            notes=[n for n in ballot if n.text],
        )
        for round_id, response, judge_hit, ballot in found[:SHOWN_UNITS]
    ]
    turns = case.dialogue or []
    return Clarification(
        row=row,
        judge=judge_version,
        last_turn=_excerpt(turns[-1].get("content", "")) if turns else "",
        units=units,
        disagreeing=len(found),
        other_notes=other_notes[:SHOWN_NOTES],
    )
