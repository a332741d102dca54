"""The gate's history and refusals on the pages (leaderboard.gate_history's report entry)."""

from django import template

from leaderboard.wording_gate import gate_refusal_text

register = template.Library()


@register.filter
def gate_refusal(gate: dict) -> str:
    return gate_refusal_text(gate or {})
