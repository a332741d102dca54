"""The gate's history and refusals on the pages (leaderboard.gate.history's report entry)."""

from django import template

from leaderboard.gate.wording import PICKED_BY, gate_refusal_text

register = template.Library()


@register.filter
def gate_refusal(gate: dict) -> str:
    return gate_refusal_text(gate or {})


@register.filter
def picked_by(rule: str) -> str:
    """How a reading's judge was picked, for people (evidence.selectors.judge_choice)."""
    return str(PICKED_BY.get(rule, rule))
