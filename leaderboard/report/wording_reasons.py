"""Why a number is undefined, in the reader's language: the one table from a reason's code
to its sentence, for the pages, the PDF, the API and the commands.

The statistics and scoring modules are Django-free and give reasons as codes
(`leaderboard/stats/reasons.py`, `judging/scoring/reasons.py`), which stored reports and
published snapshots keep. Reports stored before the codes hold English sentences; those
are still put into the reader's language through the sentences and patterns they used.
`tests/i18n/test_undefined_reasons.py` holds this table to the modules' codes.
"""

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from judging.scoring import reasons as scores
from leaderboard.stats import reasons as stats

# A code's sentence; %(name)s stands for the reason's value of that name.
SENTENCES: dict[str, str] = {
    stats.NO_UNITS: gettext_noop("no units"),
    stats.NO_UNITS_TO_BOUND: gettext_noop("no units, so there is no proportion to bound"),
    stats.NO_UNITS_TO_TEST: gettext_noop("no units, so there is nothing to test"),
    stats.P_VALUE_UNDERFLOW: gettext_noop(
        "the p-value is below the smallest number stored here (about 1e-308); its "
        "base-10 logarithm is given instead"
    ),
    stats.P_VALUE_ZERO: gettext_noop("the p-value is exactly 0, which has no logarithm"),
    stats.NO_JUDGED_UNITS: gettext_noop("no units with both a judge verdict and a human consensus"),
    stats.GATE_NO_UNITS: gettext_noop("agreement is undefined: no units"),
    stats.RATER_NO_UNITS: gettext_noop("this rater rated no units"),
    stats.RATER_NO_MAJORITY: gettext_noop(
        "on none of this rater's units did the other raters reach a majority"
    ),
    stats.NO_POSITIVE_CONSENSUS: gettext_noop(
        "the human consensus is positive on no unit, so sensitivity is undefined"
    ),
    stats.NO_NEGATIVE_CONSENSUS: gettext_noop(
        "the human consensus is negative on no unit, so specificity is undefined"
    ),
    stats.SINGLE_RATING: gettext_noop(
        "each unit has a single rating, so there is nothing to compare"
    ),
    stats.NO_RATER_PAIRS: gettext_noop(
        "no unit was rated by two or more raters, so there is nothing to compare"
    ),
    stats.SINGLE_CLUSTER: gettext_noop(
        "a single cluster: resampling clusters cannot show any variation"
    ),
    stats.SEQUENTIAL_THRESHOLD: gettext_noop(
        "the sequential test needs a threshold strictly between 0 and 1"
    ),
    stats.SEQUENTIAL_UNEQUAL_CHANCES: gettext_noop(
        "the round's responses were drawn with unequal chances (sampled by system), and the "
        "sequential test bets on items as if each had the same chance; decide on the fixed "
        "sample and its weighted interval instead"
    ),
    stats.NO_ITEM_TIMES: gettext_noop(
        "no submitted item of the round has a recorded time (imported votes have none), "
        "so the experts' pace is unknown"
    ),
    stats.MCNEMAR_NO_DISCORDANT: gettext_noop(
        "the two judges never disagree, so McNemar's test has no discordant pairs"
    ),
    stats.ONE_CATEGORY_POSSIBLE: gettext_noop(
        "only one category is possible, so chance agreement is 1 and the statistic is undefined"
    ),
    stats.ONE_CATEGORY_USED: gettext_noop(
        "all ratings are in one category, so expected agreement is 1 and the statistic is undefined"
    ),
    stats.KAPPA_ONE_CATEGORY: gettext_noop(
        "both raters used one and the same category for every unit, so expected "
        "agreement is 1 and kappa is undefined"
    ),
    stats.UNEVEN_RATINGS: gettext_noop(
        "incomplete data: units have between %(low)s and %(high)s ratings, and Fleiss' "
        "kappa needs the same number on every unit (Krippendorff's alpha or Gwet's AC1 "
        "allow missing ratings)"
    ),
    stats.NO_VOTES: gettext_noop("no expert voted on any unit of the round"),
    stats.NO_PAIRED_UNITS: gettext_noop("no units with a majority and both runs' verdicts"),
    stats.NO_PRICES: gettext_noop(
        "the judge configuration has no price (0) for tokens its calls used, so its cost is unknown"
    ),
    stats.NO_USAGE_RECORDED: gettext_noop(
        "no call of these runs on the round recorded its tokens (imported verdicts or "
        "answers reused from the cache), so the cost is unknown"
    ),
    stats.NO_LATENCY_RECORDED: gettext_noop(
        "no call of these runs on the round recorded its latency (imported verdicts or "
        "answers reused from the cache)"
    ),
    stats.NO_JUDGE_COVERS_ROUND: gettext_noop(
        "no judge version has finished runs that cover every response of the round"
    ),
    stats.NO_JUDGE_PASSES: gettext_noop(
        "no judge version's evidence on this round passes the gate"
    ),
    stats.NO_PASSING_COST: gettext_noop(
        "judge versions pass the gate, but none has a known cost to compare"
    ),
    stats.HEALTH_FEW_RATED_UNITS: gettext_noop(
        "only %(units)s units were rated by two or more experts; at least %(needed)s are needed"
    ),
    stats.HEALTH_FEW_SYSTEMS: gettext_noop(
        "verdicts on %(systems)s systems; at least %(needed)s are needed to compare systems"
    ),
    scores.NO_EXAMPLES: gettext_noop("no example to average"),
    stats.PPI_TOO_FEW_LABELLED: gettext_noop(
        "too few labelled responses (rated in full by the round's experts) to give an interval"
    ),
    stats.PPI_NO_RESPONSES: gettext_noop("no judged response contains this score"),
    stats.PPI_FEWER_THAN_TWO: gettext_noop(
        "fewer than two systems have a corrected score, so there is nothing to compare"
    ),
    stats.PPI_BIAS_SINGULAR: gettext_noop(
        "the systems' biases cannot be told apart from these data (their covariance is singular)"
    ),
    stats.PPI_NOT_RANKED: gettext_noop(
        "some systems have no corrected score; they could stand anywhere, so the other "
        "systems' rank sets allow for them"
    ),
    stats.ALT_FEW_ITEMS: gettext_noop(
        "this expert rated %(units)s responses; the test needs at least %(needed)s per expert"
    ),
    stats.ALT_FEW_EXPERTS: gettext_noop(
        "%(units)s experts rated enough responses; the test needs at least %(needed)s"
    ),
    stats.F1_ONE_CLASS: gettext_noop(
        "met or not met never occurs on one side of the comparison, so the F1 is undefined"
    ),
    stats.ANCHORS_RUBRIC_CHANGED: gettext_noop(
        "anchor responses set aside: %(anchors)s. The rubric of their case has changed since "
        "the anchor set was made, and a verdict on another rubric version is never compared "
        "with the experts' verdicts on the old one. Make a new anchor set for the current "
        "rubric versions."
    ),
    scores.NO_CASES: gettext_noop("no cases were given"),
    scores.NO_SCORABLE_CASE: gettext_noop("no case has a scorable ability"),
    scores.CASE_NOT_SCORABLE: gettext_noop(
        "the case has no scorable ability (no weighted criterion)"
    ),
    scores.CATASTROPHIC_NOT_SCORABLE: gettext_noop(
        "the catastrophic rule fired but the case has no scorable ability to zero"
    ),
    scores.TOO_FEW_CASES: gettext_noop("fewer than two cases scored: resampling cannot vary"),
    scores.NO_NORMAL_CASES: gettext_noop("no normal cases were scored"),
    scores.NO_HARD_CASES: gettext_noop("no hard cases were scored"),
    scores.NO_NORMAL_SCORABLE: gettext_noop("no normal case has a scorable ability"),
    scores.NO_HARD_SCORABLE: gettext_noop("no hard case has a scorable ability"),
    scores.NO_SCENE_CASES: gettext_noop("no case of the scene %(scene)s was scored"),
    scores.NO_SCENE_SCORABLE: gettext_noop("no case of the scene %(scene)s has a scorable ability"),
    scores.NORMAL_UNDEFINED: gettext_noop("the normal score is undefined: %(reason)s"),
    scores.HARD_UNDEFINED: gettext_noop("the hard score is undefined: %(reason)s"),
    scores.NORMAL_SCORE_ZERO: gettext_noop(
        "the normal score is 0, so no decline relative to it exists"
    ),
}

# Sentences of reports stored before reasons were codes, where they differ from a code's.
_STORED_SENTENCES = frozenset(
    (
        *SENTENCES.values(),
        gettext_noop("no units with both a consensus and a judge verdict"),
        gettext_noop("no unit where the other raters have a majority"),
        gettext_noop(
            "only one category is possible, so chance agreement is 1 and AC1 is undefined"
        ),
    )
)
_DEPENDS = re.compile(r"the (normal|hard) score is undefined: (.+)", re.S)
_SCENE = re.compile(r"no (.+) scene (cases were scored|case has a scorable ability)", re.S)
_UNEVEN = re.compile(
    r"incomplete data: units have between (\d+) and (\d+) ratings, and Fleiss' kappa needs "
    r"the same number on every unit \(Krippendorff's alpha or Gwet's AC1 allow missing "
    r"ratings\)"
)


def scene_name(scene: str) -> str:
    return scene or _("(no scene label)")


def reason_text(reason: str | None) -> str:
    """`reason` (a code, or a sentence of an older report) in the active language; a
    reason not known is shown as written."""
    if not reason:
        return ""
    parsed = scores.parse(reason)
    if parsed is not None and parsed[0] in SENTENCES:
        code, values = parsed
        sentence = _(SENTENCES[code])
        if not values:
            return sentence
        shown = {
            name: scene_name(value)
            if name == "scene"
            else reason_text(value)
            if name == "reason"
            else value
            for name, value in values.items()
        }
        try:
            return sentence % shown
        except (KeyError, TypeError, ValueError):
            return reason  # values that do not fit the sentence: shown as stored
    return _stored_sentence_text(reason)


def _stored_sentence_text(reason: str) -> str:
    if reason in _STORED_SENTENCES:
        return _(reason)
    if match := _DEPENDS.fullmatch(reason):
        which, cause = match.groups()
        code = scores.NORMAL_UNDEFINED if which == "normal" else scores.HARD_UNDEFINED
        return _(SENTENCES[code]) % {"reason": reason_text(cause)}
    if match := _SCENE.fullmatch(reason):
        scene, tail = match.groups()
        code = scores.NO_SCENE_CASES if tail == "cases were scored" else scores.NO_SCENE_SCORABLE
        return _(SENTENCES[code]) % {"scene": scene_name("" if scene == "unlabelled" else scene)}
    if match := _UNEVEN.fullmatch(reason):
        low, high = match.groups()
        return _(SENTENCES[stats.UNEVEN_RATINGS]) % {"low": low, "high": high}
    return reason


def with_reason_texts(data):
    """`data` (a report, leaderboard rows, a comparison) with each reason also in words,
    for the API: next to an `undefined` mapping an `undefined_text` one, next to a
    `reason` a `reason_text`. The codes stay as they are, for programs."""
    if isinstance(data, list):
        return [with_reason_texts(item) for item in data]
    if not isinstance(data, dict):
        return data
    out = {key: with_reason_texts(value) for key, value in data.items()}
    undefined = data.get("undefined")
    if isinstance(undefined, dict) and "undefined_text" not in data:
        out["undefined_text"] = {
            name: reason_text(value) if isinstance(value, str) else value
            for name, value in undefined.items()
        }
    reason = data.get("reason")
    if "reason" in data and (reason is None or isinstance(reason, str)):
        out.setdefault("reason_text", reason_text(reason) if reason else None)
    return out
