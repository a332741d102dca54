"""What coordinators watch: progress, each expert's pace and quality, and alerts."""

import datetime as dt
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.consensus import is_tie, majority
from annotation.models import (
    Adjudication,
    Assignment,
    ExpertProfile,
    Flag,
    ReviewItem,
    ReviewRound,
    Vote,
)
from annotation.selectors.review import (
    current_votes,
    expert_reference_accuracy,
    rates_in_round,
)

LOW_AGREEMENT_MARGIN = 0.15
# A round's pace is judged after its first day: before, experts may not have started.
PACE_AFTER_DAYS = 1.0


@dataclass
class ExpertRow:
    expert_id: int
    username: str
    done: int
    open: int
    skipped: int
    median_seconds: float | None
    fast_items: int
    agreement: float | None  # with the majority of the other raters of the same items
    reference_accuracy: float | None
    rate: Decimal | None  # None: neither the expert nor the round has a rate
    earned: Decimal | None


@dataclass
class RoundDashboard:
    round: ReviewRound
    items: int
    complete: int
    in_progress: int
    untouched: int
    assignments_done: int
    assignments_needed: int
    experts: list[ExpertRow]
    alerts: list[str] = field(default_factory=list)
    open_flags: int = 0
    # (reason label, count) of the items experts gave back to the pool
    skip_reasons: list[tuple[str, int]] = field(default_factory=list)

    @property
    def percent(self) -> float:
        needed = self.assignments_needed
        return 100.0 * self.assignments_done / needed if needed else 100.0


def _agreement_from_votes(rows) -> dict[int, float]:
    """Per expert, from (unit, expert, hit) rows: how often their vote matches the majority
    of the other raters of the same unit; units where the others tie or are absent are
    skipped."""
    votes: dict[object, dict[int, bool]] = defaultdict(dict)
    for unit, expert, hit in rows:
        votes[unit][expert] = hit
    agreed: dict[int, list[bool]] = defaultdict(list)
    for unit in votes.values():
        for expert, hit in unit.items():
            others = majority([h for e, h in unit.items() if e != expert])
            if others.is_majority:
                agreed[expert].append(others.label == hit)
    return {expert: sum(flags) / len(flags) for expert, flags in agreed.items() if flags}


def _agreement_with_others(round_: ReviewRound) -> dict[int, float | None]:
    rows = current_votes(round_=round_).values_list(
        "assignment__item_id", "criterion_id", "assignment__expert_id", "hit"
    )
    return _agreement_from_votes(((item, crit), expert, hit) for item, crit, expert, hit in rows)


def round_dashboard(*, round_: ReviewRound) -> RoundDashboard:
    items = ReviewItem.objects.filter(round=round_).aggregate(
        total=Count("pk", distinct=True),
        complete=Count(
            "pk",
            distinct=True,
            filter=Q(assigned_count__gte=round_.raters_per_item)
            & ~Q(assignments__status__in=["assigned", "in_progress"]),
        ),
        untouched=Count("pk", distinct=True, filter=Q(assigned_count=0)),
    )
    in_progress = items["total"] - items["complete"] - items["untouched"]
    per_expert: dict[int, dict] = {}
    seconds: dict[int, list[int]] = defaultdict(list)
    for expert_id, username, status, active in Assignment.objects.filter(
        item__round=round_
    ).values_list("expert_id", "expert__username", "status", "active_seconds"):
        row = per_expert.setdefault(
            expert_id, {"username": username, "done": 0, "open": 0, "skipped": 0}
        )
        if status == Assignment.Status.SKIPPED:
            row["skipped"] += 1
        elif status == Assignment.Status.SUBMITTED:
            row["done"] += 1
            seconds[expert_id].append(active)
        else:
            row["open"] += 1
    for expert in round_.experts.all():
        per_expert.setdefault(
            expert.pk, {"username": expert.username, "done": 0, "open": 0, "skipped": 0}
        )
    agreement = _agreement_with_others(round_)
    rates = dict(
        ExpertProfile.objects.filter(user_id__in=per_expert).values_list("user_id", "rate_per_item")
    )
    rows = []
    for expert_id, row in sorted(per_expert.items(), key=lambda kv: kv[1]["username"]):
        times = seconds[expert_id]
        rate = piece_rate(expert_rate=rates.get(expert_id), round_rate=round_.rate_per_item)
        rows.append(
            ExpertRow(
                expert_id=expert_id,
                username=row["username"],
                done=row["done"],
                open=row["open"],
                skipped=row["skipped"],
                median_seconds=statistics.median(times) if times else None,
                fast_items=sum(1 for t in times if t < round_.fast_answer_seconds),
                agreement=agreement.get(expert_id),
                reference_accuracy=expert_reference_accuracy(expert=expert_id),
                rate=rate,
                earned=None if rate is None else rate * row["done"],
            )
        )
    done = sum(row.done for row in rows)
    needed = items["total"] * round_.raters_per_item
    dashboard = RoundDashboard(
        round=round_,
        items=items["total"],
        complete=items["complete"],
        in_progress=in_progress,
        untouched=items["untouched"],
        assignments_done=done,
        assignments_needed=needed,
        experts=rows,
        open_flags=Flag.objects.filter(assignment__item__round=round_, resolved=False).count(),
        skip_reasons=_skip_reasons(round_),
    )
    dashboard.alerts = _alerts(dashboard)
    return dashboard


def piece_rate(*, expert_rate: Decimal | None, round_rate: Decimal | None) -> Decimal | None:
    """The expert's own rate when they have one, else the round's."""
    return expert_rate if expert_rate is not None else round_rate


def _skip_reasons(round_: ReviewRound) -> list[tuple[str, int]]:
    labels = dict(Assignment.SkipReason.choices)
    counts = (
        Assignment.objects.filter(item__round=round_, status=Assignment.Status.SKIPPED)
        .values_list("skip_reason")
        .annotate(n=Count("pk"))
        .order_by("-n", "skip_reason")
    )
    return [(labels.get(reason, reason), n) for reason, n in counts]


def _alerts(dashboard: RoundDashboard) -> list[str]:
    alerts = []
    known = [row.agreement for row in dashboard.experts if row.agreement is not None]
    if len(known) >= 3:
        typical = statistics.median(known)
        for row in dashboard.experts:
            if row.agreement is not None and row.agreement < typical - LOW_AGREEMENT_MARGIN:
                alerts.append(
                    _(
                        "%(name)s agrees with the other raters %(mine).0f%% of the time "
                        "(typical: %(typical).0f%%)."
                    )
                    % {"name": row.username, "mine": 100 * row.agreement, "typical": 100 * typical}
                )
    limit = dashboard.round.fast_answer_seconds
    for row in dashboard.experts:
        if row.fast_items:
            alerts.append(
                _("%(name)s answered %(n)d items in less than %(s)d seconds.")
                % {"name": row.username, "n": row.fast_items, "s": limit}
            )
    late = _deadline_warning(dashboard)
    if late:
        alerts.append(late)
    return alerts


def _deadline_warning(dashboard: RoundDashboard) -> str:
    round_ = dashboard.round
    remaining = dashboard.assignments_needed - dashboard.assignments_done
    if not round_.deadline or remaining <= 0 or round_.status == ReviewRound.Status.CLOSED:
        return ""
    today = timezone.localdate()
    days_left = (round_.deadline - today).days + 1
    if days_left <= 0:
        return _("The deadline has passed with %(n)d assignments still to do.") % {"n": remaining}
    elapsed = (timezone.now() - round_.created) / dt.timedelta(days=1)
    if elapsed < PACE_AFTER_DAYS:
        return ""  # too early: nothing done yet is no pace, and would always "miss"
    pace = dashboard.assignments_done / elapsed  # assignments per day so far
    if pace * days_left < remaining:
        return _(
            "At the current pace (%(pace).1f items a day) the round will miss its deadline: "
            "%(n)d assignments left, %(days)d days to go."
        ) % {"pace": pace, "n": remaining, "days": days_left}
    return ""


QUEUE_NEEDED = "needed"
QUEUE_SPLITS = "splits"


def adjudication_queue(
    *, round_: ReviewRound | None = None, adjudicator=None, show: str = QUEUE_NEEDED
) -> list[dict]:
    """Items that need a senior expert: an open flag, a tie (no majority to stand on), or a
    split on a catastrophic criterion (one rater saw a catastrophic failure the others did
    not). A 2-1 split elsewhere has a majority and is shown only with `show="splits"`. An
    adjudicator's queue leaves out the rounds they rate in (see `item_get_for_adjudicator`).
    """
    flagged = Flag.objects.filter(resolved=False)
    if round_:
        flagged = flagged.filter(assignment__item__round=round_)
    labels = dict(Flag.Reason.choices)
    flags: dict[int, list[str]] = defaultdict(list)
    for item, reason in flagged.values_list("assignment__item_id", "reason"):
        flags[item].append(str(labels.get(reason, reason)))
    # Without a round, the flagged items' splits are counted all the same: an item shows
    # the same counts in every view of the queue.
    votes = (
        current_votes(round_=round_)
        if round_ is not None
        else Vote.objects.current().filter(assignment__item_id__in=list(flags))
    )
    split_items, tied_items, catastrophic_items = _split_counts(votes)
    ids = set(flags) | set(tied_items) | set(catastrophic_items)
    if show == QUEUE_SPLITS:
        ids |= set(split_items)
    items = ReviewItem.objects.filter(pk__in=ids)
    if adjudicator is not None:
        items = items.exclude(rates_in_round(adjudicator))
    items = items.select_related("round", "response__case").annotate(
        adjudicated=Exists(Adjudication.objects.filter(item=OuterRef("pk")))
    )
    return [
        {
            "item": item,
            "split_criteria": split_items.get(item.pk, 0),
            "tied_criteria": tied_items.get(item.pk, 0),
            "catastrophic_splits": catastrophic_items.get(item.pk, 0),
            "flags": flags.get(item.pk, []),
            "adjudicated": item.adjudicated,
        }
        for item in items.order_by("round", "pk")
    ]


def _split_counts(votes) -> tuple[dict[int, int], dict[int, int], dict[int, int]]:
    """Per item, from its current votes: the criteria its raters split on, those split
    evenly (ties), and those of the splits that are catastrophic criteria."""
    split_items: dict[int, int] = defaultdict(int)
    tied_items: dict[int, int] = defaultdict(int)
    catastrophic_items: dict[int, int] = defaultdict(int)
    unit_votes: dict[tuple[int, int], list[bool]] = defaultdict(list)
    catastrophic: set[int] = set()
    for item, criterion, hit, is_catastrophic in votes.values_list(
        "assignment__item_id", "criterion_id", "hit", "criterion__is_catastrophic"
    ):
        unit_votes[(item, criterion)].append(hit)
        if is_catastrophic:
            catastrophic.add(criterion)
    for (item, criterion), hits in unit_votes.items():
        if len(hits) < 2 or not 0 < sum(hits) < len(hits):
            continue
        split_items[item] += 1
        if is_tie(len(hits), sum(hits)):
            tied_items[item] += 1
        if criterion in catastrophic:
            catastrophic_items[item] += 1
    return split_items, tied_items, catastrophic_items


def round_agreement(*, round_: ReviewRound) -> dict[int, float | None]:
    """Per expert of the round: agreement with the majority of the other raters."""
    return _agreement_with_others(round_)


def expert_agreement_by_round(*, expert) -> dict[int, float]:
    """One expert's agreement with the majority of the other raters, per round they rated
    in, read in one query (only the units they rated)."""
    rows = (
        Vote.objects.current()
        .filter(
            assignment__item__in=Assignment.objects.filter(expert=expert).values("item_id"),
        )
        .values_list(
            "assignment__item__round_id",
            "assignment__item_id",
            "criterion_id",
            "assignment__expert_id",
            "hit",
        )
    )
    per_round: dict[int, list] = defaultdict(list)
    for round_id, item, criterion, rater, hit in rows:
        per_round[round_id].append(((item, criterion), rater, hit))
    found = {}
    for round_id, round_rows in per_round.items():
        agreement = _agreement_from_votes(round_rows).get(expert.pk)
        if agreement is not None:
            found[round_id] = agreement
    return found
