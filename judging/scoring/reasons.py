"""Why a score is undefined, as a code: short stable identifiers, never sentences.

A reason is a string so that it sits in a `Value`, a stored report or a published snapshot
as it is: the code alone (``"no_cases"``), or the code with its values
(``"no_scene_cases:scene=%E8%81%8C%E5%9C%BA"``), each value percent-encoded so that any
scene name, or a nested reason, survives. The pages, the PDF and the API put a code into
words (`leaderboard/report/wording_reasons.py`); `CODES` lists every code this package may give,
with the names of its values, and a test holds the wording to it.
"""

from urllib.parse import quote, unquote

NO_CASES = "no_cases"
NO_SCORABLE_CASE = "no_scorable_case"
CASE_NOT_SCORABLE = "case_not_scorable"
CATASTROPHIC_NOT_SCORABLE = "catastrophic_not_scorable"
TOO_FEW_CASES = "too_few_cases_to_resample"
NO_NORMAL_CASES = "no_normal_cases"
NO_HARD_CASES = "no_hard_cases"
NO_NORMAL_SCORABLE = "no_normal_scorable"
NO_HARD_SCORABLE = "no_hard_scorable"
NO_SCENE_CASES = "no_scene_cases"
NO_SCENE_SCORABLE = "no_scene_scorable"
NORMAL_UNDEFINED = "normal_undefined"
HARD_UNDEFINED = "hard_undefined"
NORMAL_SCORE_ZERO = "normal_score_zero"
# HealthBench's profile (judging.scoring.healthbench): nothing to average.
NO_EXAMPLES = "no_examples"

CODES: dict[str, tuple[str, ...]] = {
    NO_EXAMPLES: (),
    NO_CASES: (),
    NO_SCORABLE_CASE: (),
    CASE_NOT_SCORABLE: (),
    CATASTROPHIC_NOT_SCORABLE: (),
    TOO_FEW_CASES: (),
    NO_NORMAL_CASES: (),
    NO_HARD_CASES: (),
    NO_NORMAL_SCORABLE: (),
    NO_HARD_SCORABLE: (),
    NO_SCENE_CASES: ("scene",),
    NO_SCENE_SCORABLE: ("scene",),
    NORMAL_UNDEFINED: ("reason",),
    HARD_UNDEFINED: ("reason",),
    NORMAL_SCORE_ZERO: (),
}

# Why a side of the benchmark (by its difficulty) has no score: no case of it, or none
# with a scorable ability.
NO_SIDE_CASES = {"normal": NO_NORMAL_CASES, "hard": NO_HARD_CASES}
NO_SIDE_SCORABLE = {"normal": NO_NORMAL_SCORABLE, "hard": NO_HARD_SCORABLE}

_CODE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


def reason(code: str, **values: object) -> str:
    """A reason with its values, in the stored form (`parse` reads it back)."""
    if not code or not set(code) <= _CODE_CHARS:
        raise ValueError(f"a reason code is lower-case letters, digits and _, got {code!r}")
    if not values:
        return code
    pairs = ";".join(f"{name}={quote(str(value), safe='')}" for name, value in values.items())
    return f"{code}:{pairs}"


def parse(text: str) -> tuple[str, dict[str, str]] | None:
    """(code, values) of a reason in the stored form; None for text that is not one (a
    sentence of a report stored before reasons were codes)."""
    code, _sep, rest = text.partition(":")
    if not code or not set(code) <= _CODE_CHARS:
        return None
    values = {}
    for pair in rest.split(";") if rest else ():
        name, sep, value = pair.partition("=")
        if not sep or not name:
            return None
        values[name] = unquote(value)
    return code, values
