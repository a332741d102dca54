"""Every reason the Django-free statistics and scoring modules give for an undefined number
is a code of their registries, and every code reaches a reader in English and in Chinese.

The modules' sources are read: a reason written there as a sentence, or as a code the
registries do not list, fails here; so does a code the wording table cannot put into words.
Reports stored before the codes hold English sentences, which are still translated."""

import ast
import re
from pathlib import Path

import pytest
from django.utils import translation

from judging.scoring import reasons as score_reasons
from leaderboard.report.wording_reasons import SENTENCES, reason_text, with_reason_texts
from leaderboard.stats import reasons as stat_reasons

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    *sorted((ROOT / "leaderboard" / "stats").glob("*.py")),
    *sorted((ROOT / "judging" / "scoring").glob("*.py")),
    ROOT / "leaderboard" / "report" / "agreement.py",
    ROOT / "leaderboard" / "selection" / "choice.py",
    ROOT / "leaderboard" / "selection" / "selectors" / "compare.py",
    ROOT / "leaderboard" / "boards" / "selectors" / "scores.py",
    ROOT / "leaderboard" / "rubric_health" / "selectors" / "health.py",
]
CODES = {**stat_reasons.CODES, **score_reasons.CODES}
REGISTRIES = ("leaderboard.stats.reasons", "judging.scoring.reasons")

# Strings with a space in those modules that are not reasons, and what they are.
NOT_REASONS = {
    "a statistic": "names the value in a ValueError's message",
    "an interval bound": "names the value in a ValueError's message",
    "dialogue (case)": "the report's name for its resampling unit, translated by the page",
    "no votes": "the consensus outcome of a unit nobody voted on (annotation.consensus)",
    " / ": "joins the scenes of a case in the leaderboard's scene column",
    "betting e-process (aGRAPA), Waudby-Smith & Ramdas 2024": "the sequential test's method",
    "betting e-process (aGRAPA) against the reference interval": "the drift test's method",
    "Hájek ratio weighted by inverse inclusion probabilities; linearised variance clustered "
    "by dialogue; Wilson interval at the effective number of units": (
        "the weighted share's interval method"
    ),
}
# Formatted strings that are not reasons: the gate's rule as the report states it (the page
# words the rule itself) and the error raised for a verdict list of the wrong length.
OTHER_FORMATTED = (
    "agreement (point estimate) >= {",
    "lower bound of the Wilson 95% interval >= {",
    "lower bound of the cluster-robust interval >= {",
    "sequential test decides pass (agreement >= {",
    "the judge returned {got} verdict(s)",
    "Concord {CONCORD_VERSION}",  # the software a comparison was made with
    "{name}={quote(str(value), safe='')}",  # a reason's value in its stored form
)


def _parents(tree):
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _raised(node, parents) -> bool:
    while node is not None:
        if isinstance(node, ast.Raise):
            return True
        node = parents.get(node)
    return False


def _sentences(path: Path) -> list[str]:
    """Strings of the module that read like a sentence (a space in them), outside
    docstrings, exceptions and the pieces of formatted strings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = _parents(tree)
    found = []
    for node in ast.walk(tree):
        parent = parents.get(node)
        if isinstance(parent, ast.Expr | ast.JoinedStr | ast.FormattedValue):
            continue
        if _raised(node, parents) or (isinstance(parent, ast.Call) and _is_sql(parent)):
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and " " in node.value:
            found.append(node.value)
        elif isinstance(node, ast.JoinedStr) and " " in ast.unparse(node):
            found.append(ast.unparse(node)[2:-1])
    return found


def _is_sql(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr in {"execute", "raw"}


def _reason_arguments(tree) -> list[ast.expr]:
    """What the module hands over as a reason: the argument of `undefined(...)`, the code
    of `reason(...)`, an `empty_reason=`/`reason=` keyword, a value stored under
    `undefined[...]` or a report's "reason"."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name in {"undefined", "reason"} and node.args:
                found.append(node.args[0])
            found += [k.value for k in node.keywords if k.arg in {"empty_reason", "reason"}]
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and getattr(target.value, "id", "") == (
                    "undefined"
                ):
                    found.append(node.value)
        elif isinstance(node, ast.Dict):
            found += [
                value
                for key, value in zip(node.keys, node.values, strict=True)
                if isinstance(key, ast.Constant) and key.value == "reason"
            ]
    return found


def _imported_codes(tree) -> dict[str, list[str]]:
    """Names the module takes from a registry, with their codes (a mapping, such as the
    codes by a side of the benchmark, has several)."""
    import importlib

    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in REGISTRIES:
            registry = importlib.import_module(node.module)
            for alias in node.names:
                value = getattr(registry, alias.name)
                if isinstance(value, str | dict):
                    codes = list(value.values()) if isinstance(value, dict) else [value]
                    names[alias.asname or alias.name] = codes
    return names


def _unknown_codes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = _imported_codes(tree)
    wrong = []
    for node in _reason_arguments(tree):
        formatted = {
            piece
            for part in ast.walk(node)
            if isinstance(part, ast.JoinedStr)
            for piece in ast.walk(part)
            if piece is not part
        }
        for part in ast.walk(node):
            if part in formatted:
                continue
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                if part.value not in CODES:
                    wrong.append(f"line {part.lineno}: {part.value!r} is not a code")
            elif isinstance(part, ast.JoinedStr):
                wrong.append(f"line {part.lineno}: a formatted reason {ast.unparse(part)}")
            elif isinstance(part, ast.Name) and part.id.isupper() and part.id not in imported:
                wrong.append(f"line {part.lineno}: {part.id} is not taken from a registry")
    wrong += [
        f"{name} = {code!r} is not a code"
        for name, codes in imported.items()
        for code in codes
        if code not in CODES
    ]
    return wrong


def _is_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_modules_word_no_reason_themselves(path):
    sentences = [text for text in _sentences(path) if text not in NOT_REASONS]
    sentences = [t for t in sentences if not any(t.startswith(o) for o in OTHER_FORMATTED)]
    assert not sentences, "reasons are codes of the registries, not sentences:\n" + "\n".join(
        sentences
    )


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_modules_give_only_codes_of_the_registries(path):
    assert not _unknown_codes(path), "\n".join(_unknown_codes(path))


def test_the_check_sees_a_sentence_and_an_unknown_code(tmp_path):
    module = tmp_path / "leak.py"
    module.write_text(
        "from leaderboard.stats.reasons import NO_UNITS\n"
        "def f(n):\n"
        "    if n:\n"
        "        return Stat.undefined('nothing_here')\n"
        "    return Stat.undefined(f'no {n} units')\n"
        "def g():\n"
        "    return Stat.undefined(NO_UNITS), Stat.undefined(OTHER)\n"
    )
    assert _sentences(module) == ["no {n} units"]
    wrong = _unknown_codes(module)
    assert sorted(wrong) == [
        "line 4: 'nothing_here' is not a code",
        "line 5: a formatted reason f'no {n} units'",
        "line 7: OTHER is not taken from a registry",
    ]


def test_the_registries_constants_are_their_codes():
    for registry in (stat_reasons, score_reasons):
        constants = {
            value
            for name, value in vars(registry).items()
            if name.isupper() and isinstance(value, str)
        }
        assert constants == set(registry.CODES)
    assert not set(stat_reasons.CODES) & set(score_reasons.CODES)


def _instance(code: str) -> str:
    values = {
        "low": 2,
        "high": 3,
        "scene": "职场心理",
        "reason": score_reasons.NO_HARD_CASES,
        "units": 3,
        "needed": 4,
        "systems": 1,
        "anchors": 3,
    }
    return score_reasons.reason(code, **{name: values[name] for name in CODES[code]})


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_is_worded_in_english_and_chinese(code):
    assert code in SENTENCES, f"no sentence for {code}"
    placeholders = set(re.findall(r"%\((\w+)\)s", SENTENCES[code]))
    assert placeholders == set(CODES[code])
    with translation.override("en"):
        english = reason_text(_instance(code))
    with translation.override("zh-hans"):
        chinese = reason_text(_instance(code))
    assert english != code and " " in english and "%(" not in english
    assert _is_chinese(chinese) and "%(" not in chinese, f"{code}: {chinese!r}"
    assert set(SENTENCES) == set(CODES), "the table words no code the modules cannot give"


def test_values_of_a_reason_survive_storage_and_are_shown():
    scene = "职场;心理=50%: a"
    stored = score_reasons.reason(score_reasons.NO_SCENE_CASES, scene=scene)
    assert score_reasons.parse(stored) == ("no_scene_cases", {"scene": scene})
    nested = score_reasons.reason(score_reasons.HARD_UNDEFINED, reason=stored)
    with translation.override("zh-hans"):
        shown = reason_text(nested)
        assert scene in shown and "scene" not in shown and _is_chinese(shown)
        assert reason_text("no_scene_cases:scene=") == reason_text(
            score_reasons.reason(score_reasons.NO_SCENE_CASES, scene="")
        )
    with translation.override("en"):
        assert reason_text("uneven_ratings:low=2;high=3").startswith(
            "incomplete data: units have between 2 and 3 ratings"
        )
    with pytest.raises(ValueError, match="reason code"):
        score_reasons.reason("Not a code")


# Sentences as reports stored before the codes hold them.
STORED = [
    "no units",
    "no units with both a consensus and a judge verdict",
    "no unit where the other raters have a majority",
    "only one category is possible, so chance agreement is 1 and AC1 is undefined",
    "agreement is undefined: no units",
    "incomplete data: units have between 2 and 3 ratings, and Fleiss' kappa needs the same "
    "number on every unit (Krippendorff's alpha or Gwet's AC1 allow missing ratings)",
    "no 职场心理 scene cases were scored",
    "no unlabelled scene case has a scorable ability",
    "the hard score is undefined: no hard case has a scorable ability",
    "the normal score is 0, so no decline relative to it exists",
]


@pytest.mark.parametrize("sentence", STORED)
def test_a_sentence_of_an_older_report_is_still_translated(sentence):
    with translation.override("zh-hans"):
        shown = reason_text(sentence)
    assert shown != sentence and _is_chinese(shown)
    assert "scorable" not in shown and "units" not in shown


def test_an_unknown_reason_is_shown_as_written():
    assert reason_text("something new") == "something new"
    assert reason_text("not_a_known_code") == "not_a_known_code"
    assert reason_text(None) == ""


def test_the_api_form_keeps_the_codes_and_adds_the_words():
    report = {
        "undefined": {"cohen_kappa": "kappa_one_category"},
        "gate": {"passed": False, "reason": "gate_no_units"},
        "rows": [{"undefined": {"hard": "no_hard_cases"}}],
        "mcnemar": {"value": None, "reason": None},
        "stored": {"undefined": {"binomial_p": STORED[1]}},
    }
    with translation.override("zh-hans"):
        shown = with_reason_texts(report)
    assert shown["undefined"] == report["undefined"] and shown["gate"]["reason"] == "gate_no_units"
    assert _is_chinese(shown["undefined_text"]["cohen_kappa"])
    assert _is_chinese(shown["gate"]["reason_text"])
    assert _is_chinese(shown["rows"][0]["undefined_text"]["hard"])
    assert shown["mcnemar"]["reason_text"] is None
    assert _is_chinese(shown["stored"]["undefined_text"]["binomial_p"])
