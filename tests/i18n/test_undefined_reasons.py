"""Every reason the Django-free statistics and scoring modules give for an undefined number
reaches a Chinese reader in Chinese.

The reasons are read from the modules' sources (every string that is not a docstring or an
exception's message), so a reason added there without a translation fails here."""

import ast
from pathlib import Path

import pytest
from django.utils import translation

from leaderboard.wording import reason_text

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    *sorted((ROOT / "leaderboard" / "stats").glob("*.py")),
    *sorted((ROOT / "judging" / "scoring").glob("*.py")),
    ROOT / "leaderboard" / "agreement.py",
]

# Strings of those modules that are not reasons, and what they are.
NOT_REASONS = {
    "a statistic": "names the value in a ValueError's message",
    "an interval bound": "names the value in a ValueError's message",
    "dialogue (case)": "the report's name for its resampling unit, translated by the page",
    "no votes": "the consensus label of a unit nobody voted on, not a reason",
    "failed": "a code: why a unit has no judge verdict (the page words it)",
    "not_judged": "a code: why a unit has no judge verdict (the page words it)",
    "other_version": "a code: why a unit has no judge verdict (the page words it)",
    "betting e-process (aGRAPA), Waudby-Smith & Ramdas 2024": "the sequential test's method",
}

# Reasons that carry values, each with an instance as its module writes it.
WITH_VALUES = {
    "incomplete data: units have between {": (
        "incomplete data: units have between 2 and 3 ratings, and Fleiss' kappa needs the "
        "same number on every unit (Krippendorff's alpha or Gwet's AC1 allow missing ratings)"
    ),
    "no {what} case has a scorable ability": "no hard case has a scorable ability",
    "no {what} cases were scored": "no normal cases were scored",
    "no {difficulty} case has a scorable ability": "no normal case has a scorable ability",
    "no {difficulty} cases were scored": "no hard cases were scored",
    "{name or 'unlabelled'} scene": "no 职场心理 scene cases were scored",
    "the normal score is undefined: {normal.reason}": (
        "the normal score is undefined: no normal cases were scored"
    ),
    "the hard score is undefined: {hard.reason}": (
        "the hard score is undefined: no hard case has a scorable ability"
    ),
}
# Messages with values that are not reasons: the gate's rule as the report states it (the
# page words the rule itself) and the error raised for a verdict list of the wrong length.
OTHER_FORMATTED = (
    "agreement (point estimate) >= {",
    "lower bound of the Wilson 95% interval >= {",
    "the judge returned {got} verdict(s)",
)


def _strings(path: Path) -> list[tuple[str, bool]]:
    """(text, has values) of every string that may be a reason. A formatted string's text
    keeps its placeholders as written."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}

    def raised(node) -> bool:
        while node is not None:
            if isinstance(node, ast.Raise):
                return True
            node = parents.get(node)
        return False

    found = []
    for node in ast.walk(tree):
        parent = parents.get(node)
        if isinstance(parent, ast.Expr | ast.JoinedStr | ast.FormattedValue) or raised(node):
            continue  # docstrings, pieces and format specs of a formatted string, exceptions
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and " " in node.value:
            found.append((node.value, False))
        elif isinstance(node, ast.JoinedStr) and " " in ast.unparse(node):
            found.append((ast.unparse(node)[2:-1], True))
    return found


def _is_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_the_sources_are_read():
    strings = {text for path in SOURCES for text, _ in _strings(path)}
    assert "no units" in strings and "no case has a scorable ability" in strings


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_reason_of_the_module_is_translated(path):
    untranslated = []
    with translation.override("zh-hans"):
        for text, formatted in _strings(path):
            if formatted:
                if any(text.startswith(other) for other in OTHER_FORMATTED):
                    continue
                key = next((k for k in WITH_VALUES if k in text), None)
                if key is None:
                    untranslated.append(f"a reason with values, not in WITH_VALUES: {text!r}")
                    continue
                text = WITH_VALUES[key]
            elif text in NOT_REASONS:
                continue
            shown = reason_text(text)
            if shown == text or not _is_chinese(shown):
                untranslated.append(text)
    assert not untranslated, "\n" + "\n".join(untranslated)


def test_values_inside_a_reason_are_kept_and_nested_reasons_translated():
    with translation.override("zh-hans"):
        uneven = reason_text(WITH_VALUES["incomplete data: units have between {"])
        assert "2" in uneven and "3" in uneven and _is_chinese(uneven)
        nested = reason_text("the hard score is undefined: no hard case has a scorable ability")
        assert nested.count("：") >= 1 and "scorable" not in nested
        assert "职场心理" in reason_text("no 职场心理 scene cases were scored")
    assert reason_text("something new") == "something new"
    assert reason_text(None) == ""
