"""Changing a benchmark's gate policy: which rule decides and at what threshold. The
product's promise is agreement of at least 75% with the experts, so a policy may be
stricter than that, never looser. Every change is in the audit log; evaluations already
recorded keep the rule they were decided under."""

from django.db import transaction
from django.utils.translation import gettext as _

from annotation.models import Benchmark
from core.audit.services import audit_record
from leaderboard import audit_actions
from leaderboard.models import GatePolicy
from leaderboard.stats.threshold import AGREEMENT_GATE

MINIMUM_THRESHOLD = AGREEMENT_GATE


class GatePolicyInvalid(ValueError):
    pass


def _state(policy: GatePolicy) -> dict:
    return {
        "rule": policy.rule,
        "threshold": policy.threshold,
        "allow_rubric_changes": policy.allow_rubric_changes,
        "min_raters": policy.min_raters,
        "max_bias_points": policy.max_bias_points,
        "chance_statistic": policy.chance_statistic,
        "min_chance": policy.min_chance,
    }


UNCHANGED = object()


def gate_policy_set(
    *,
    benchmark: Benchmark,
    rule: str,
    threshold: float,
    allow_rubric_changes: bool,
    user,
    min_raters=UNCHANGED,
    max_bias_points=UNCHANGED,
    chance=UNCHANGED,
) -> GatePolicy:
    """Set the policy; `min_raters`, `max_bias_points` (None: no bias condition) and
    `chance` (a (statistic, floor) pair; None: no chance-corrected condition) stay as they
    are unless given."""
    if rule not in GatePolicy.Rule.values:
        raise GatePolicyInvalid(
            _("Unknown rule “%(rule)s”: choose one of %(rules)s.")
            % {"rule": rule, "rules": ", ".join(GatePolicy.Rule.values)}
        )
    if not MINIMUM_THRESHOLD <= threshold <= 1:
        raise GatePolicyInvalid(
            _("The threshold must be between %(low)s%% and 100%%; it was %(value)s%%.")
            % {"low": round(100 * MINIMUM_THRESHOLD), "value": f"{100 * threshold:g}"}
        )
    if min_raters is not UNCHANGED and not 1 <= int(min_raters) <= 20:
        raise GatePolicyInvalid(
            _("The minimum raters per item must be between 1 and 20; it was %(n)s.")
            % {"n": min_raters}
        )
    if max_bias_points not in (UNCHANGED, None) and not 0 <= float(max_bias_points) <= 100:
        raise GatePolicyInvalid(
            _("The largest judge bias must be between 0 and 100 points; it was %(n)s.")
            % {"n": max_bias_points}
        )
    if chance not in (UNCHANGED, None):
        statistic, floor = chance
        if statistic not in GatePolicy.Chance.values or not statistic:
            raise GatePolicyInvalid(
                _("Unknown chance-corrected statistic “%(s)s”.") % {"s": statistic}
            )
        if floor is None or not -1 <= float(floor) <= 1:
            raise GatePolicyInvalid(
                _("Give the chance-corrected floor as a number between -1 and 1.")
            )
    with transaction.atomic():
        # get_or_create: two first saves at once meet on the one-to-one row, not in a 500.
        policy, _created = GatePolicy.objects.select_for_update().get_or_create(benchmark=benchmark)
        before = _state(policy)
        policy.rule, policy.threshold = rule, threshold
        policy.allow_rubric_changes = allow_rubric_changes
        if min_raters is not UNCHANGED:
            policy.min_raters = int(min_raters)
        if max_bias_points is not UNCHANGED:
            policy.max_bias_points = None if max_bias_points is None else float(max_bias_points)
        if chance is not UNCHANGED:
            policy.chance_statistic = chance[0] if chance else ""
            policy.min_chance = float(chance[1]) if chance else None
        after = _state(policy)
        if before == after:
            return policy
        policy.save()
        audit_record(
            actor=user,
            action=audit_actions.GATE_POLICY_CHANGED,
            benchmark=benchmark,
            details={"from": before, "to": after},
        )
    return policy
