"""Why the gate cannot decide on a round, in the reader's language: one sentence per
refusal code of leaderboard.gate.history, for the pages, the API and the commands."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from leaderboard.evidence.selectors import judge_choice as choice
from leaderboard.gate import refusals as codes
from leaderboard.gate.refusals import CALIBRATION_LEAK

# How a reading's judge was picked when the reader named none (judge_choice's rules).
PICKED_BY = {
    choice.PUBLISHED: gettext_lazy("the judge of the newest published leaderboard"),
    choice.GATE_EVALUATED: gettext_lazy("the judge of the newest gate evaluation"),
    choice.LATEST: gettext_lazy(
        "no judge is published or gate-evaluated yet: the judge that finished a run last"
    ),
    choice.ASKED: gettext_lazy("the judge you chose"),
    choice.DECIDED: gettext_lazy("the judge of the round's recorded decision"),
    "runs": gettext_lazy("the runs you chose"),
}


def gate_refusal_text(gate: dict) -> str:
    """The sentence for the gate's `refusal` (empty when there is none)."""
    refusal = gate.get("refusal")
    current = (gate.get("rounds") or [{}])[-1]
    values = {
        "round": current.get("round", ""),
        "complete": current.get("complete_items", 0),
        "items": current.get("items", 0),
        "raters": current.get("raters_per_item", 0),
        "min": gate.get("min_raters", 0),
    }
    if refusal == codes.ROUND_INCOMPLETE:
        return (
            _(
                "The round %(round)s is not complete: %(complete)d of its %(items)d items have "
                "all their raters. The point and lower-bound rules decide only on a complete "
                "round, so that closing a round early cannot pick a favourable moment; a round "
                "closed early can be decided only by the sequential rule."
            )
            % values
        )
    if refusal == codes.TOO_FEW_RATERS:
        return (
            _(
                "The round %(round)s asks %(raters)d raters per item; the gate needs at least "
                "%(min)d, so that the human majority rests on independent votes."
            )
            % values
        )
    if refusal == codes.RATER_READS_VERDICTS:
        return (
            _(
                "Someone who rated in the round %(round)s can read the judge's verdicts (a "
                "coordinator, a researcher or an administrator). The gate needs experts who rated "
                "without seeing what the judge said."
            )
            % values
        )
    if refusal == codes.UNEQUAL_CHANCES:
        return _(
            "The round %(round)s drew its responses with unequal chances, and its tallies "
            "were recorded without its items' chances, so the sequential rule cannot weight "
            "its items by them. Decide on the whole sample with the point or lower-bound rule."
        ) % {"round": gate.get("unequal_chances_round") or values["round"]}
    if refusal == codes.PUBLISHER_RATED:
        return _(
            "You rated items in this round yourself. The gate needs evidence that is "
            "independent of the person who records or publishes it: ask a colleague."
        )
    if refusal == CALIBRATION_LEAK:
        return _(
            "This judge version was built from the calibration part of the round %(round)s, "
            "and every item of that round is in its calibration part: there is no held-out "
            "item left to judge it on. Judge it on another round, or on a round with a "
            "held-out part."
        ) % {"round": (gate.get("calibration") or {}).get("derived_from_round") or values["round"]}
    return ""
