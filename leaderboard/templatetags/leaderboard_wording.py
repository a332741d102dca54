"""Template filters for the wording in leaderboard/report/wording.py."""

from django import template
from django.template.defaultfilters import floatformat

from leaderboard.report import reading, wording

register = template.Library()


@register.filter
def group_label(value, key: str) -> str:
    return wording.group_label(value, key)


@register.filter
def profile_label(value) -> str:
    return wording.profile_label(value)


@register.filter
def reason_text(value) -> str:
    """Why a number is undefined, in the reader's language."""
    return wording.reason_text(None if value is None else str(value))


@register.filter
def gate_rule(gate: dict) -> str:
    return wording.gate_rule_text(gate)


@register.filter
def decimals(value, digits: int = 3) -> str:
    """A statistic rounded for the page (machine-readable outputs keep full precision);
    None as a dash."""
    if value is None:
        return "—"
    return floatformat(value, int(digits))


@register.filter
def pct(value) -> str:
    """A proportion as the reader's pages show every percentage (one decimal)."""
    return reading.percent(None if value is None else float(value))


@register.filter
def pct_range(interval) -> str:
    """An interval of proportions as "70.1–80.2%" (the same decimals as `pct`)."""
    if not interval or interval[0] is None:
        return "—"
    return f"{reading.percent(float(interval[0]))[:-1]}–{reading.percent(float(interval[1]))}"


@register.filter
def points(value) -> str:
    """A difference of proportions in percentage points, signed, one decimal."""
    if value is None:
        return "—"
    return f"{100 * float(value):+.1f}".replace("-", "−")


@register.filter
def points_range(interval: dict) -> str:
    """A difference's interval {"low", "high"} as "−31.3 to −12.5" (percentage points)."""
    if not interval or interval.get("low") is None:
        return "—"
    return f"{points(interval['low'])} … {points(interval['high'])}"


@register.filter
def health_flag(flag: str) -> str:
    """A rubric health flag in the reader's words."""
    return wording.health_flag_text(flag)
