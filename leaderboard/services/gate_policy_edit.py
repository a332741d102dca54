"""Changing a benchmark's gate policy: which rule decides and at what threshold. The
product's promise is agreement of at least 75% with the experts, so a policy may be
stricter than that, never looser. Every change is in the audit log; evaluations already
recorded keep the rule they were decided under."""

from django.db import transaction
from django.utils.translation import gettext as _

from annotation.models import AuditEvent, Benchmark
from annotation.services.audit import audit_record
from leaderboard.models import GatePolicy

MINIMUM_THRESHOLD = 0.75


class GatePolicyInvalid(ValueError):
    pass


def _state(policy: GatePolicy) -> dict:
    return {
        "rule": policy.rule,
        "threshold": policy.threshold,
        "allow_rubric_changes": policy.allow_rubric_changes,
    }


def gate_policy_set(
    *, benchmark: Benchmark, rule: str, threshold: float, allow_rubric_changes: bool, user
) -> GatePolicy:
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
    with transaction.atomic():
        # get_or_create: two first saves at once meet on the one-to-one row, not in a 500.
        policy, _created = GatePolicy.objects.select_for_update().get_or_create(benchmark=benchmark)
        before = _state(policy)
        policy.rule, policy.threshold = rule, threshold
        policy.allow_rubric_changes = allow_rubric_changes
        after = _state(policy)
        if before == after:
            return policy
        policy.save()
        audit_record(
            actor=user,
            action=AuditEvent.Action.GATE_POLICY_CHANGED,
            benchmark=benchmark,
            details={"from": before, "to": after},
        )
    return policy
