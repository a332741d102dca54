"""The calibration → held-out comparison in the reader's language: its verdicts and why a
derived version has none (codes of leaderboard.selection.calibration_comparison and
leaderboard.selection.selectors.calibration)."""

from django.utils.translation import gettext_lazy as _

from leaderboard.selection.calibration_comparison import IMPROVED, NO_DETECTABLE_CHANGE, WORSE
from leaderboard.selection.calibration_guard import CALIBRATION_LEAK

PARENT_NOT_ON_ROUND = "parent_not_on_round"

VERDICT_WORDS = {
    IMPROVED: _("improved"),
    NO_DETECTABLE_CHANGE: _("no detectable change"),
    WORSE: _("worse"),
}

WHY_NO_VERDICT = {
    CALIBRATION_LEAK: _(
        "every item of this round is in the calibration part the version was built from: "
        "there is no held-out item to compare it on"
    ),
    PARENT_NOT_ON_ROUND: _("its parent version has no finished runs covering this round"),
}


def verdict_words(code: str | None) -> str:
    return str(VERDICT_WORDS[code]) if code in VERDICT_WORDS else ""


def why_no_verdict(code: str | None) -> str:
    return str(WHY_NO_VERDICT[code]) if code in WHY_NO_VERDICT else ""
