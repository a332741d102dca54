"""The sequential test's state for one review round, as its dashboard shows it live: the
same test and the same settled-prefix rule as the agreement report's "sequential" entry,
with the confidence sequence after every item for the chart. The judge's verdicts are
picked as the agreement page picks them by default (`agreement_evidence`)."""

from dataclasses import dataclass

from django.db.models import Count

from annotation.models import ReviewItem, ReviewRound
from leaderboard.selectors.agreement import agreement_units
from leaderboard.selectors.evidence import agreement_evidence, with_savings
from leaderboard.sequential_chart import sequence_chart
from leaderboard.sequential_evidence import sequential_block
from leaderboard.stats.sequential import CONTINUE


@dataclass(frozen=True)
class RoundSequential:
    round: ReviewRound
    state: dict | None  # the "sequential" entry with its path; None: see problem
    chart: dict | None
    problem: str = ""
    run_ids: tuple[int, ...] = ()

    @property
    def decided(self) -> bool:
        return bool(self.state) and self.state.get("decision") not in (None, CONTINUE)


def round_sequential(*, round_: ReviewRound) -> RoundSequential:
    evidence = agreement_evidence(
        benchmark=round_.benchmark, round_ref=str(round_.pk), with_report=False
    )
    if not evidence.runs:
        return RoundSequential(round=round_, state=None, chart=None, problem=evidence.problem)
    units = agreement_units(round_=round_, runs=evidence.runs)
    ranks = dict(
        ReviewItem.objects.filter(round=round_).values_list("response_id", "hand_out_rank")
    )
    state = sequential_block(
        units,
        ranks,
        raters_per_item=round_.raters_per_item,
        threshold=evidence.policy.threshold,
        with_path=True,
    )
    state = with_savings(state, round_=round_)
    chart = None
    if state.get("decision") is not None:
        chart = sequence_chart(
            state["path"],
            threshold=state["threshold"],
            items_total=state["items_total"],
            decided_at=state["decided_at"],
        )
    return RoundSequential(
        round=round_,
        state=state,
        chart=chart,
        run_ids=tuple(sorted(run.pk for run in evidence.runs)),
    )


def round_unstarted_count(*, round_: ReviewRound) -> int:
    """Items handed out in the round and never opened: what closing early gives back."""
    return (
        ReviewItem.objects.filter(
            round=round_, assignments__status="assigned", assignments__started__isnull=True
        )
        .aggregate(n=Count("assignments"))
        .get("n")
        or 0
    )
