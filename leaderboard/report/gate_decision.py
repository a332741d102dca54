"""The gate's decision inside an agreement report: under one rule on the report's own
units, or on a judge version's whole history (leaderboard.gate.history). Pure (no Django)."""

from collections.abc import Sequence
from enum import StrEnum

from leaderboard.gate.history import RoundTallies, history_gate
from leaderboard.stats.reasons import GATE_NO_UNITS


class GateRule(StrEnum):
    POINT = "point"  # the method's rule: the point estimate reaches the threshold
    LOWER_BOUND = "lower_bound"  # stricter: the 95% interval's lower bound reaches it
    # Anytime-valid: the sequential test (leaderboard.stats.sequential) decides "pass".
    SEQUENTIAL = "sequential"


def history_report_gate(
    single: dict,
    history: Sequence[RoundTallies],
    *,
    threshold: float,
    rule: GateRule,
    min_raters: int,
) -> dict:
    decided = history_gate(history, rule=str(rule), threshold=threshold, min_raters=min_raters)
    if rule == GateRule.LOWER_BOUND:
        single["rule"] = f"lower bound of the cluster-robust interval >= {threshold:.2f}"
    reason = single["reason"]
    if decided["point"] is None and reason is None:
        reason = GATE_NO_UNITS
    return {**single, **decided, "reason": reason}


def gate(
    *,
    point: float | None,
    wilson_95: list[float] | None,
    sequential: dict | None,
    threshold: float,
    rule: GateRule,
) -> dict:
    """The decision on one report's units: its plain share `point`, the share's Wilson
    interval and the sequential test's entry (None without one)."""
    lower = wilson_95[0] if wilson_95 else None
    if rule == GateRule.SEQUENTIAL:
        decision = (sequential or {}).get("decision")
        return {
            "threshold": threshold,
            "passed": decision == "pass",
            "rule": f"sequential test decides pass (agreement >= {threshold:.2f})",
            "rule_name": str(rule),
            "point": point,
            "lower_bound": lower,
            "decision": decision,
            "reason": None if point is not None else GATE_NO_UNITS,
        }
    tested = point if rule == GateRule.POINT else lower
    passed = tested is not None and tested >= threshold
    if rule == GateRule.POINT:
        text = f"agreement (point estimate) >= {threshold:.2f}"
    else:
        text = f"lower bound of the Wilson 95% interval >= {threshold:.2f}"
    return {
        "threshold": threshold,
        "passed": passed,
        "rule": text,
        "rule_name": str(rule),
        "point": point,
        "lower_bound": lower,
        "reason": None if tested is not None else GATE_NO_UNITS,
    }
