"""The gate's history and refusals on the pages (leaderboard.gate_history's report entry)."""

from django import template

from leaderboard.wording_gate import PICKED_BY, gate_refusal_text

register = template.Library()


@register.filter
def gate_refusal(gate: dict) -> str:
    return gate_refusal_text(gate or {})


@register.filter
def picked_by(rule: str) -> str:
    """How a reading's judge was picked, for people (leaderboard.selectors.judge_choice)."""
    return str(PICKED_BY.get(rule, rule))
