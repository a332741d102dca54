"""Recording gate evaluations and publishing leaderboards: the only writers of the evidence
chain. Both refuse, writing nothing, with a reason that names what they looked at."""

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from annotation.models import ReviewRound
from core.audit.services import audit_record
from judging.models import JudgeRun
from leaderboard import audit_actions
from leaderboard.boards.selectors.runs import BoardRuns
from leaderboard.boards.services import stored_leaderboard_rows
from leaderboard.corrected.board import RoundNotFound
from leaderboard.evidence.selectors.pick import Evidence, gate_policy
from leaderboard.gate.policy import Decision
from leaderboard.gate.refusals import CALIBRATION_LEAK, PUBLISHER_RATED
from leaderboard.gate.selectors.history import rated_in_round
from leaderboard.gate.selectors.publishing import publish_state
from leaderboard.gate.wording import gate_refusal_text
from leaderboard.models import GateEvaluation, LeaderboardSnapshot
from leaderboard.report.wording import refusal_text


class EvaluationRefused(Exception):
    """The evidence cannot be recorded as a gate evaluation; the message says why, and
    `code` names the reason where the gate's policy refuses (leaderboard.gate.history)."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


@dataclass
class PublishRefused(Exception):
    decision: Decision
    message: str

    def __str__(self) -> str:
        return self.message


def _refuse_evaluation(evidence: Evidence, user) -> None:
    run, round_ = evidence.run, evidence.round
    if round_ is None or run is None or evidence.report is None:
        raise EvaluationRefused(evidence.problem or _("A review round and a judge run are needed."))
    for each in evidence.runs:
        if each.status != JudgeRun.Status.FINISHED:
            raise EvaluationRefused(
                _("Run #%(run)d is %(status)s: only a finished run can be evaluated.")
                % {"run": each.pk, "status": each.get_status_display()}
            )
    if evidence.judge_version is None:
        raise EvaluationRefused(
            _("These runs come from different judge versions; a gate evaluation is of one.")
        )
    if not evidence.covers_round:
        raise EvaluationRefused(
            _(
                "Run #%(run)d judged %(covered)d of the %(items)d responses of the round "
                "%(round)s; the gate needs runs that cover the round."
            )
            % {
                "run": run.pk,
                "covered": evidence.covered,
                "items": evidence.items,
                "round": round_.name,
            }
        )
    if not evidence.on_frozen_rubrics:
        raise EvaluationRefused(
            _(
                "Run #%(run)d judged %(n)d of the round's responses on a rubric version other "
                "than the one the round %(round)s froze. Judge the round itself (its page, or "
                "judge --round) to evaluate this judge on it."
            )
            % {"run": run.pk, "n": evidence.items - evidence.frozen, "round": round_.name}
        )
    report = evidence.report
    if (report.calibration or {}).get("refusal") == CALIBRATION_LEAK:
        raise EvaluationRefused(gate_refusal_text(report.gate), CALIBRATION_LEAK)
    if not report.units:
        raise EvaluationRefused(
            _("No unit of the round has both a human majority and a judge verdict yet.")
        )
    refusal = report.gate.get("refusal")
    if refusal:
        raise EvaluationRefused(gate_refusal_text(report.gate), refusal)
    if user is not None and rated_in_round(user=user, round_=round_):
        raise EvaluationRefused(gate_refusal_text({"refusal": PUBLISHER_RATED}), PUBLISHER_RATED)


def gate_evaluate(*, evidence: Evidence, user=None) -> GateEvaluation:
    """Record the gate evaluation of the evidence's run against its round, under the
    benchmark's policy: the numbers, the rule, the judge version, who and when.

    Raises EvaluationRefused, writing nothing, unless the run is finished, covers every
    response of the round, judged each on the rubric version the round froze, and some
    unit has both a majority and a verdict."""
    _refuse_evaluation(evidence, user)
    with transaction.atomic():
        return _evaluation_create(evidence, user)


def _evaluation_create(evidence: Evidence, user) -> GateEvaluation:
    report, run = evidence.report, evidence.run
    gate = report.gate
    interval = (gate.get("pooled") or {}).get("interval") or report.wilson_95 or [None, None]
    evaluation = GateEvaluation.objects.create(
        benchmark=evidence.benchmark,
        round=evidence.round,
        run=run,
        judge_version=run.judge_version,
        judge_name=run.judge_version.label,
        threshold=gate["threshold"],
        rule=gate["rule_name"],
        passed=gate["passed"],
        units=report.units,
        agreement=report.percent_agreement,
        lower_bound=interval[0],
        upper_bound=interval[1],
        report=report.as_json(),
        evaluated_by=user if getattr(user, "is_authenticated", False) else None,
    )
    evaluation.runs.set([run.pk for run in evidence.runs])
    audit_record(
        actor=user,
        action=audit_actions.GATE_EVALUATED,
        benchmark=evidence.benchmark,
        details={
            "evaluation": evaluation.pk,
            "round": evidence.round.name,
            "run": run.pk,
            "judge": f"{run.judge_version.config.name} v{run.judge_version.number}",
            "passed": evaluation.passed,
            "units": evaluation.units,
        },
    )
    return evaluation


def _correcting(board: BoardRuns, evaluation, corrected_by: ReviewRound | None):
    """The round the published board is corrected by: the one asked for, else, under a
    policy with a bias condition, the round whose votes the condition just read (the
    evaluation's: the board the decision rests on); else none."""
    if corrected_by is not None:
        if corrected_by.benchmark_id != board.benchmark.pk:
            raise RoundNotFound(
                f"review round {corrected_by.name!r} is not of benchmark {board.benchmark.slug!r}"
            )
        return corrected_by
    policy = gate_policy(benchmark=board.benchmark)
    if evaluation is not None and policy.max_bias_points is not None:
        return evaluation.round
    return None


def leaderboard_publish(
    *, board: BoardRuns, profile: str, user, corrected_by: ReviewRound | None = None
) -> LeaderboardSnapshot:
    """Publish the board under `profile` if the gate policy allows it (see gate_policy),
    keeping its rows, runs, judge version, the evaluation it rests on, any notice of
    changed rubrics and the round that corrects it (`_correcting`). Raises PublishRefused
    with the decision and its reason, or RoundNotFound for another benchmark's round."""
    decision, evaluation = publish_state(board=board, user=user, profile=profile)
    if not decision.allowed:
        raise PublishRefused(decision, refusal_text(decision, evaluation))
    correcting = _correcting(board, evaluation, corrected_by)
    rows = stored_leaderboard_rows(board=board, profile=profile)
    with transaction.atomic():
        snapshot = LeaderboardSnapshot.objects.create(
            benchmark=board.benchmark,
            judge_version=board.judge_version,
            judge_name=board.judge_version.label,
            gate=evaluation,
            profile=profile,
            rows=rows,
            rubric_changes=decision.rubric_changes,
            corrected_by=correcting,
            published_by=user,
        )
        snapshot.runs.set(board.run_ids)
        audit_record(
            actor=user,
            action=audit_actions.LEADERBOARD_PUBLISHED,
            benchmark=board.benchmark,
            details={
                "snapshot": snapshot.pk,
                "profile": profile,
                "gate_evaluation": evaluation.pk if evaluation else None,
                "runs": sorted(board.run_ids),
                "corrected_by": correcting.name if correcting else None,
            },
        )
    return snapshot
