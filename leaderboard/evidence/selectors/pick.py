"""The one way to pick the evidence of an agreement report: a benchmark, a review round and
the judge's verdicts on it. The page, the PDF, the API, the gate record and the commands
all call `agreement_evidence`, so they accept the same rounds and runs and build the same
report.

The verdicts come from one run (by id), from every finished run of a judge's current
version (by judge name: the newest verdicts per response, as a leaderboard reads them), or,
for `latest` (the default), from the newest finished run that covers every response of
the round, or else from the finished runs of the newest judge version that cover it
together (systems judged, or imported, in separate runs). A partial run is never picked:
when nothing covers the round, there is no report and the evidence says so.
"""

from dataclasses import dataclass, field

from django.db.models import Count, F, IntegerField, Max, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _

from annotation.models import Benchmark, ReviewItem, ReviewRound
from annotation.selectors.round_decisions import round_median_item_seconds
from config.version import CONCORD_VERSION
from judging.models import JudgeConfig, JudgeRun, JudgeTask, JudgeVersion
from judging.models.runs import finished_judge_runs
from leaderboard.boards.selectors.runs import BoardNotFound, board_runs, judge_version_header
from leaderboard.evidence.provenance import rubric_versions_of
from leaderboard.evidence.selectors.holdout import calibration_responses, derived_on_round
from leaderboard.gate.selectors.history import tallies_of, version_history
from leaderboard.models import GatePolicy
from leaderboard.report.agreement import GateRule, Unit, agreement_report
from leaderboard.report.selectors.agreement import agreement_units, round_tasks, sampling_weights
from leaderboard.report.typed import AgreementReport
from leaderboard.selection.calibration_guard import held_out, with_guard
from leaderboard.sequential.evidence import sequential_block
from leaderboard.stats import DEFAULT_RESAMPLES
from leaderboard.stats.savings import decision_savings

LATEST = "latest"


class EvidenceNotFound(Exception):
    """The round, run or judge asked for is not this benchmark's; the message says which."""


@dataclass
class Evidence:
    benchmark: Benchmark
    policy: GatePolicy
    round: ReviewRound | None
    runs: tuple[JudgeRun, ...] = ()  # newest first
    items: int = 0  # responses in the round
    covered: int = 0  # of them, judged (or tried) in the runs
    frozen: int = 0  # of them, judged on the rubric version the round froze
    units: list[Unit] = field(default_factory=list)
    report: AgreementReport | None = None
    problem: str = ""  # why there is no report, for people

    @property
    def run(self) -> JudgeRun | None:
        """The newest of the runs."""
        return self.runs[0] if self.runs else None

    @property
    def judge_version(self) -> JudgeVersion | None:
        versions = {run.judge_version_id for run in self.runs}
        return self.runs[0].judge_version if len(versions) == 1 else None

    @property
    def covers_round(self) -> bool:
        return self.items > 0 and self.covered == self.items

    @property
    def on_frozen_rubrics(self) -> bool:
        return self.items > 0 and self.frozen == self.items


def gate_policy(*, benchmark: Benchmark) -> GatePolicy:
    return GatePolicy.objects.filter(benchmark=benchmark).first() or GatePolicy(benchmark=benchmark)


def benchmark_rounds(*, benchmark: Benchmark):
    return ReviewRound.objects.filter(benchmark=benchmark).order_by("-created", "-pk")


def benchmark_judges(*, benchmark: Benchmark):
    """Judge configurations whose current version has a finished run on the benchmark."""
    return (
        JudgeConfig.objects.filter(
            finished_judge_runs("current_version__runs__"),
            current_version__runs__benchmark=benchmark,
        )
        .select_related("current_version")
        .distinct()
        .order_by("name")
    )


def _finished_runs(benchmark: Benchmark):
    return (
        JudgeRun.objects.finished()
        .filter(benchmark=benchmark)
        .select_related("judge_version__config")
    )


def _round_responses(round_: ReviewRound):
    return ReviewItem.objects.filter(round=round_).values("response_id")


def round_runs(*, benchmark: Benchmark, round_: ReviewRound | None):
    """The benchmark's finished judge runs, newest first, each annotated with how many of the
    round's responses it was asked to judge (`covered`; anchors it judged for the drift
    test alone are not). One query."""
    runs = _finished_runs(benchmark)
    if round_ is not None:
        mine = JudgeTask.objects.requested().filter(
            run=OuterRef("pk"), response_id__in=_round_responses(round_)
        )
        counted = mine.order_by().values("run").annotate(n=Count("pk")).values("n")
        runs = runs.annotate(covered=Coalesce(Subquery(counted, output_field=IntegerField()), 0))
    return runs.order_by(F("finished").desc(nulls_last=True), "-pk")


def _round(benchmark: Benchmark, ref: str) -> ReviewRound | None:
    rounds = benchmark_rounds(benchmark=benchmark)
    if not ref:
        return rounds.first()
    found = rounds.filter(pk=int(ref)).first() if ref.isdigit() else None
    found = found or rounds.filter(name=ref).first()
    if found is None:
        raise EvidenceNotFound(_("No review round %(ref)s in this benchmark.") % {"ref": ref})
    return found


def _covering_version_runs(benchmark: Benchmark, round_: ReviewRound, items: int) -> tuple:
    """The finished runs of the newest judge version whose finished runs together judged
    every response of the round (none: empty). Two queries."""
    versions = (
        JudgeTask.objects.requested()
        .filter(
            finished_judge_runs("run__"),
            run__benchmark=benchmark,
            response_id__in=_round_responses(round_),
        )
        .values("run__judge_version")
        .annotate(n=Count("response", distinct=True), newest=Max("run__finished"))
        .filter(n=items)
        .order_by("-newest")
        .values_list("run__judge_version", flat=True)
    )
    version = next(iter(versions), None)
    if version is None:
        return ()
    return tuple(
        _finished_runs(benchmark)
        .filter(judge_version_id=version)
        .order_by(F("finished").desc(nulls_last=True), "-pk")
    )


def _runs(benchmark: Benchmark, round_: ReviewRound | None, run_ref: str, judge: str, items: int):
    if judge:
        try:
            return board_runs(benchmark=benchmark, judge=judge).runs
        except BoardNotFound as exc:
            raise EvidenceNotFound(str(exc)) from exc
    if run_ref and run_ref != LATEST:
        if not run_ref.isdigit():
            raise EvidenceNotFound(_("A judge run is given by its id or as 'latest'."))
        found = (
            JudgeRun.objects.filter(benchmark=benchmark, kind=JudgeRun.Kind.JUDGE, pk=int(run_ref))
            .select_related("judge_version__config")
            .first()
        )
        if found is None:
            raise EvidenceNotFound(_("No judge run #%(ref)s in this benchmark.") % {"ref": run_ref})
        return (found,)
    if round_ is None or not items:
        return ()
    single = round_runs(benchmark=benchmark, round_=round_).filter(covered=items).first()
    if single is not None:
        return (single,)
    return _covering_version_runs(benchmark, round_, items)


def agreement_evidence(
    *,
    benchmark: Benchmark,
    round_ref: str = "",
    run_ref: str = "",
    judge: str = "",
    threshold: float | None = None,
    rule: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    with_report: bool = True,
    min_raters: int | None = None,
) -> Evidence:
    """The round (an id or name; none: the newest), the runs (see the module), and their
    agreement report under the benchmark's gate policy (or the threshold and rule given).
    Raises EvidenceNotFound for a round, run or judge this benchmark does not have.
    Without `with_report`, only the round and runs are picked (a page about one case).
    Units with fewer votes than `min_raters` (by default the round's raters per item) are
    left out of the judge's agreement and counted."""
    policy = gate_policy(benchmark=benchmark)
    round_ = _round(benchmark, str(round_ref or "").strip())
    # Each response of the round with the rubric version it froze.
    frozen = (
        dict(
            ReviewItem.objects.filter(round=round_).values_list("response_id", "rubric_version_id")
        )
        if round_
        else {}
    )
    items = len(frozen)
    runs = _runs(benchmark, round_, str(run_ref or "").strip(), judge.strip(), items)
    evidence = Evidence(benchmark=benchmark, policy=policy, round=round_, runs=runs, items=items)
    if round_ is None:
        evidence.problem = _("This benchmark has no review round yet.")
        return evidence
    if not runs:
        evidence.problem = _(
            "No finished judge run covers every response of the round %(round)s. Judge the "
            "round (its page, or judge --round), or pick a run or a judge."
        ) % {"round": round_.name}
        return evidence
    if not with_report:
        return evidence
    tasks = round_tasks(round_=round_, runs=runs)
    evidence.covered = len(tasks)
    evidence.frozen = sum(
        1 for response, task in tasks.items() if task.rubric_version == frozen.get(response)
    )
    evidence.units = agreement_units(round_=round_, runs=runs, tasks=tasks)
    guard = None
    if derived_on_round(evidence.judge_version, round_):
        # A version built from this round's calibration part is judged on the rest only.
        guard = held_out(evidence.units, calibration_responses(round_=round_), items=items)
        evidence.units = guard.units
    gate_threshold = policy.threshold if threshold is None else threshold
    ranks = dict(
        ReviewItem.objects.filter(round=round_).values_list("response_id", "hand_out_rank")
    )
    sampling, weights = sampling_weights(round_=round_, units=evidence.units)
    sequential = sequential_block(
        evidence.units,
        ranks,
        raters_per_item=round_.raters_per_item,
        threshold=gate_threshold,
        weights=weights,
    )
    version = evidence.judge_version
    # The weights just read say whether the chances differ: no query again for it.
    unequal = weights is not None and len(set(weights)) > 1
    history = (
        version_history(
            version=version,
            round_=round_,
            units=evidence.units,
            ranks=ranks,
            unequal_chances=unequal,
            weights=weights,
        )
        if version is not None
        else [
            tallies_of(
                round_=round_,
                units=evidence.units,
                ranks=ranks,
                unequal_chances=unequal,
                weights=weights,
            )
        ]
    )
    evidence.report = agreement_report(
        evidence.units,
        weights=weights,
        sampling=sampling,
        threshold=gate_threshold,
        rule=GateRule(policy.rule if rule is None else rule),
        resamples=resamples,
        sequential=with_savings(sequential, round_=round_),
        history=history,
        min_raters=policy.min_raters,
        short_of=round_.raters_per_item if min_raters is None else min_raters,
        chance_floor=(policy.chance_statistic, policy.min_chance)
        if policy.chance_statistic and policy.min_chance is not None
        else None,
    )
    if guard is not None:
        evidence.report = with_guard(evidence.report, guard, round_name=round_.name)
    return evidence


def with_savings(sequential: dict, *, round_: ReviewRound) -> dict:
    """The sequential entry with, once it has decided, what the decision saves (one query
    for the experts' pace, only then)."""
    if sequential.get("decided_at") is None:
        return sequential
    saved = decision_savings(
        decided_at=sequential["decided_at"],
        items_total=sequential["items_total"],
        ratings_needed=sequential["ratings_needed"],
        ratings_planned=sequential["ratings_planned"],
        raters_per_item=round_.raters_per_item,
        median_item_seconds=round_median_item_seconds(round_=round_),
    )
    return {**sequential, "savings": saved.as_dict()}


def evidence_header(evidence: Evidence) -> dict:
    """What produced a report, for its JSON: round, runs, judge version, coverage, Concord."""
    version = evidence.judge_version
    return {
        "benchmark": evidence.benchmark.slug,
        "round": evidence.round.name,
        "judge_run": evidence.run.pk,
        "judge_runs": sorted(run.pk for run in evidence.runs),
        "judge_version": judge_version_header(version) if version else None,
        "round_seed": evidence.round.seed,
        "rubric_versions": rubric_versions_of(
            ReviewItem.objects.filter(round=evidence.round).values_list(
                "response__case__external_id", "rubric_version__number"
            )
        ),
        "coverage": {
            "items": evidence.items,
            "judged": evidence.covered,
            "on_frozen_rubrics": evidence.frozen,
        },
        "produced_by": f"Concord {CONCORD_VERSION}",
    }
