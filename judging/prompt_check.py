"""Checking a prompt template a lab brings (no Django): its placeholders, and the language
it is written in against the benchmark's.

A judge prompt must place the response and the criteria ({response}, {criteria}) and may
use {dialogue}, {criteria_count} and {schema}; a generation prompt must place
{dialogue}. HeartBench's released judge prompt uses its own names, rendered as its script
renders them: {dialogue_history}, {rubric} (which then places the criteria) and
{rubric_nums}. Anything else in braces would reach the model as it stands; literal braces
are written doubled ({{ and }}), as Python's format strings have them."""

import re
import string

from judging.text_measure import cjk_count

ALLOWED = {
    "judge": {
        "dialogue",
        "response",
        "criteria",
        "criteria_count",
        "schema",
        "dialogue_history",
        "rubric",
        "rubric_nums",
    },
    "generation": {"dialogue"},
}
REQUIRED = {"judge": {"response", "criteria"}, "generation": {"dialogue"}}
_LETTER = re.compile(r"[A-Za-z\u3400-\u4dbf\u4e00-\u9fff]")


class PromptInvalid(ValueError):
    pass


def placeholders(text: str) -> set[str]:
    """The names in braces; raises PromptInvalid for a brace that opens or closes nothing."""
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError as exc:
        raise PromptInvalid(f"{exc}: write a literal brace as {{{{ or }}}}") from None


def decorated_placeholders(text: str) -> list[str]:
    """Placeholders written with more than a name, as they stand in `text`: a format spec
    ("{response:>5000000}", which pads the response to five million characters), a
    conversion ("{response!r}"), an attribute or an index ("{criteria.x}", "{criteria[0]}").
    A prompt places each value plainly; raises PromptInvalid for unbalanced braces."""
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise PromptInvalid(f"{exc}: write a literal brace as {{{{ or }}}}") from None
    found = []
    for _, name, spec, conversion in fields:
        if name is None:
            continue
        if spec or conversion or not name.isidentifier():
            shown = name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            found.append("{" + shown + "}")
    return found


def check_placeholders(kind: str, system_text: str, user_text: str) -> None:
    """Raises PromptInvalid naming every unknown or missing placeholder."""
    used = placeholders(system_text) | placeholders(user_text)
    unknown = sorted(used - ALLOWED[kind])
    # HeartBench's {rubric} places the criteria as {criteria} does.
    missing = sorted(REQUIRED[kind] - used - ({"criteria"} if "rubric" in used else set()))
    problems = []
    if unknown:
        problems.append(
            "unknown placeholder(s) "
            + ", ".join("{" + name + "}" for name in unknown)
            + " (allowed: "
            + ", ".join("{" + name + "}" for name in sorted(ALLOWED[kind]))
            + ")"
        )
    if missing:
        problems.append("missing placeholder(s) " + ", ".join("{" + name + "}" for name in missing))
    if problems:
        raise PromptInvalid("; ".join(problems))


def text_language(text: str) -> str | None:
    """ "zh-hans" when most letters are Chinese characters, "en" when most are Latin
    letters, None for text with too few letters to tell."""
    letters = _LETTER.findall(text)
    if len(letters) < 20:
        return None
    chinese = cjk_count("".join(letters))
    return "zh-hans" if chinese / len(letters) >= 0.3 else "en"
