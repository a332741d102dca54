from django.db import transaction
from django.utils.translation import gettext as _

from annotation.models import Benchmark, ReviewRound
from judging.models import JudgeRun
from judging.selectors.scores import leaderboard_rows
from leaderboard.agreement import GateRule, agreement_report
from leaderboard.models import GateEvaluation, GatePolicy, LeaderboardSnapshot
from leaderboard.selectors.agreement import agreement_units


class PublishRefused(Exception):
    pass


def gate_policy(*, benchmark: Benchmark) -> GatePolicy:
    return GatePolicy.objects.filter(benchmark=benchmark).first() or GatePolicy(benchmark=benchmark)


def gate_evaluate(*, round_: ReviewRound, run: JudgeRun, user=None) -> GateEvaluation:
    """Evaluate the benchmark's gate for this judge run against this round, and keep the
    numbers, the rule, who and when."""
    policy = gate_policy(benchmark=run.benchmark)
    report = agreement_report(
        agreement_units(round_=round_, run=run),
        threshold=policy.threshold,
        rule=GateRule(policy.rule),
    )
    wilson = report["wilson_95"] or [None, None]
    return GateEvaluation.objects.create(
        benchmark=run.benchmark,
        round=round_,
        run=run,
        config=run.config,
        threshold=policy.threshold,
        rule=policy.rule,
        passed=report["gate"]["passed"],
        units=report["units"],
        agreement=report["percent_agreement"],
        lower_bound=wilson[0],
        upper_bound=wilson[1],
        report=report,
        evaluated_by=user if getattr(user, "is_authenticated", False) else None,
    )


def leaderboard_publish(*, run: JudgeRun, profile: str, user) -> LeaderboardSnapshot:
    """Publish the run's leaderboard, only if the latest gate evaluation of its judge
    configuration on this benchmark passed."""
    latest = (
        GateEvaluation.objects.filter(benchmark=run.benchmark, config=run.config)
        .order_by("-created", "-pk")
        .first()
    )
    if latest is None:
        raise PublishRefused(
            _(
                "This judge has not been checked against the experts yet: evaluate the gate "
                "on a review round first."
            )
        )
    if not latest.passed:
        agreement = "—" if latest.agreement is None else f"{100 * latest.agreement:.1f}%"
        raise PublishRefused(
            _(
                "The judge failed the gate: agreement %(a)s on %(n)d units, threshold "
                "%(t).0f%% (%(rule)s)."
            )
            % {
                "a": agreement,
                "n": latest.units,
                "t": 100 * latest.threshold,
                "rule": latest.get_rule_display(),
            }
        )
    if run.status != JudgeRun.Status.FINISHED:
        raise PublishRefused(_("Only a finished run can be published."))
    with transaction.atomic():
        return LeaderboardSnapshot.objects.create(
            benchmark=run.benchmark,
            run=run,
            gate=latest,
            profile=profile,
            rows=leaderboard_rows(run=run, profile=profile),
            published_by=user,
        )
