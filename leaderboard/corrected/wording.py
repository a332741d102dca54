"""The corrected board in the reader's words: why a number is undefined, and one sentence
per system saying which way the experts' votes move its score."""

from django.utils.translation import gettext as _

from leaderboard.report.wording_reasons import SENTENCES as ALL_SENTENCES
from leaderboard.stats import ppi, ppi_ranks

# The corrected board's reasons, worded where every reason is (leaderboard.report.wording_reasons).
SENTENCES = {
    code: ALL_SENTENCES[code]
    for code in (
        ppi.TOO_FEW_LABELLED,
        ppi.NO_RESPONSES,
        ppi_ranks.FEWER_THAN_TWO,
        ppi_ranks.SINGULAR,
        ppi_ranks.NOT_RANKED,
    )
}


def reason_words(code: str | None) -> str:
    """A reason code of the corrected board in the active language (unknown: as written)."""
    if not code:
        return ""
    if code in SENTENCES:
        return _(SENTENCES[code]) % {"min": ppi.MIN_LABELLED}
    return code


def _points(value: float) -> str:
    return f"{value:.1f}"


def reading(system: str, entry: dict) -> str:
    """One plain sentence on a system's overall score, e.g. "The experts' votes move Model A
    down by 3.1 points (1.2 to 5.0); the judge is lenient with it."."""
    if entry["corrected"] is None:
        return _("%(system)s has no corrected score: %(reason)s (%(n)s labelled).") % {
            "system": system,
            "reason": reason_words(entry["reason"]),
            "n": entry["labelled"],
        }
    bias, low, high = entry["bias"], entry["bias_ci_low"], entry["bias_ci_high"]
    if low > 0:
        return _(
            "The experts' votes move %(system)s down by %(change)s points (%(low)s to "
            "%(high)s); the judge is lenient with it."
        ) % {"system": system, "change": _points(bias), "low": _points(low), "high": _points(high)}
    if high < 0:
        return _(
            "The experts' votes move %(system)s up by %(change)s points (%(low)s to "
            "%(high)s); the judge is strict with it."
        ) % {
            "system": system,
            "change": _points(-bias),
            "low": _points(-high),
            "high": _points(-low),
        }
    return _(
        "The experts' votes change %(system)s's score by %(change)s points (%(low)s to "
        "%(high)s); the data do not show the judge to be lenient or strict with it."
    ) % {
        "system": system,
        "change": f"{-bias:+.1f}",
        "low": _points(-high),
        "high": _points(-low),
    }


def with_reason_words(payload: dict) -> dict:
    """`payload` with a `reason_text` beside every reason code, in the active language."""
    if isinstance(payload, list):
        return [with_reason_words(item) for item in payload]
    if not isinstance(payload, dict):
        return payload
    out = {key: with_reason_words(value) for key, value in payload.items()}
    if "reason" in payload:
        out["reason_text"] = reason_words(payload["reason"])
    return out
