"""The sequential test's state for one review round, as its dashboard shows it live: the
same test and the same settled-prefix rule as the agreement report's "sequential" entry,
with the confidence sequence after every item for the chart, for one named judge (see
`_round_evidence`), so that the card, the round's banner and the other readings agree."""

from dataclasses import dataclass

from django.db.models import Count

from annotation.models import ReviewItem, ReviewRound
from annotation.selectors.round_decisions import round_decision_notices
from judging.models import JudgeVersion
from leaderboard.evidence.selectors.judge_choice import ASKED, DECIDED, LATEST, default_judge
from leaderboard.evidence.selectors.pick import EvidenceNotFound, agreement_evidence, with_savings
from leaderboard.report.selectors.agreement import agreement_units, round_tasks, sampling_weights
from leaderboard.sequential.chart import sequence_chart
from leaderboard.sequential.evidence import sequential_block
from leaderboard.stats.sequential import CONTINUE


@dataclass(frozen=True)
class RoundSequential:
    round: ReviewRound
    state: dict | None  # the "sequential" entry with its path; None: see problem
    chart: dict | None
    problem: str = ""
    run_ids: tuple[int, ...] = ()
    judge: JudgeVersion | None = None  # whose verdicts the card reads
    picked_by: str = LATEST  # how (leaderboard.evidence.selectors.judge_choice)

    @property
    def decided(self) -> bool:
        return bool(self.state) and self.state.get("decision") not in (None, CONTINUE)


def _covers(round_: ReviewRound, runs) -> bool:
    items = ReviewItem.objects.filter(round=round_).count()
    return bool(runs) and items > 0 and len(round_tasks(round_=round_, runs=runs)) == items


def _round_evidence(round_: ReviewRound, judge: str, notice: dict):
    """The runs the card reads, and how their judge was picked: the judge asked for; else
    the judge of the round's recorded decision (so the card and the round's banner agree);
    else the benchmark's default judge when it judged the whole round; else the newest
    runs that cover the round."""
    picked_by = ASKED
    if not judge:
        judge, picked_by = notice.get("judge_name") or "", DECIDED
    if not judge:
        version, picked_by = default_judge(benchmark=round_.benchmark)
        judge = version.config.name if version is not None else ""
    if judge:
        try:
            evidence = agreement_evidence(
                benchmark=round_.benchmark,
                round_ref=str(round_.pk),
                judge=judge,
                with_report=False,
            )
        except EvidenceNotFound:
            if picked_by == ASKED:
                raise
        else:
            if picked_by == ASKED or _covers(round_, evidence.runs):
                return evidence, picked_by
    evidence = agreement_evidence(
        benchmark=round_.benchmark, round_ref=str(round_.pk), with_report=False
    )
    return evidence, LATEST


def round_sequential(*, round_: ReviewRound, judge: str = "") -> RoundSequential:
    """The round's sequential state for one judge (see `_round_evidence`). Raises
    EvidenceNotFound for a judge name the benchmark does not have."""
    notice = round_decision_notices(round_ids=[round_.pk]).get(round_.pk) or {}
    evidence, picked_by = _round_evidence(round_, judge.strip(), notice)
    if not evidence.runs:
        return RoundSequential(
            round=round_, state=None, chart=None, problem=evidence.problem, picked_by=picked_by
        )
    units = agreement_units(round_=round_, runs=evidence.runs)
    items = ReviewItem.objects.filter(round=round_).values_list(
        "response_id", "hand_out_rank", "inclusion_probability"
    )
    ranks = {response: rank for response, rank, _ in items}
    chances = {response: chance for response, _, chance in items}
    state = sequential_block(
        units,
        ranks,
        raters_per_item=round_.raters_per_item,
        threshold=evidence.policy.threshold,
        with_path=True,
        weights=sampling_weights(round_=round_, units=units, probability=chances)[1],
    )
    if picked_by == DECIDED and notice.get("decision"):
        # A recorded decision stays as recorded: items added to the round later (an
        # extension) or a rubric's size do not move it.
        state = {
            **state,
            "decision": notice["decision"],
            "decided_at": notice.get("decided_at"),
            "recorded": True,
        }
    state = with_savings(state, round_=round_)
    chart = None
    # A refused test has no path, even where a decision was recorded before the refusal.
    if state.get("decision") is not None and "path" in state:
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
        judge=evidence.judge_version,
        picked_by=picked_by,
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
