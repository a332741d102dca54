"""How the methods section writes values (no Django): numbers as the pages write them,
shares as percentages with one decimal ("75.0%", intervals "40.9–92.9%") and coefficients
with two decimals; every value escaped for the format (LaTeX's special characters, Markdown's
emphasis and link characters); phrases filled from the phrasebook of the language."""

import re
from collections.abc import Callable

from leaderboard.methods import phrases_en, phrases_zh

LANGUAGES = ("en", "zh-hans")
FORMATS = ("md", "tex")
_PHRASES = {"en": phrases_en.PHRASES, "zh-hans": phrases_zh.PHRASES}


class MethodsInputError(ValueError):
    """A language or format the methods section is not written in."""


# Formatting, as the pages do (leaderboard.report.reading.percent and coefficient).


def percent(value: float | None) -> str | None:
    return None if value is None else f"{100 * value:.1f}%"


def percent_range(interval) -> str | None:
    if not interval or interval[0] is None:
        return None
    return f"{percent(interval[0])[:-1]}–{percent(interval[1])}"


def coefficient(value: float | None) -> str | None:
    return None if value is None else f"{value:.2f}"


# Escaping.

_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "κ": r"$\kappa$",
    "α": r"$\alpha$",
    "×": r"$\times$",
}
_TEX_RE = re.compile("|".join(map(re.escape, _TEX)))
_MD_RE = re.compile(r"([\\`*_\[\]<>#|])")
_FIELD = re.compile(r"(\{\w+\})")


def escape_tex(text: str) -> str:
    return _TEX_RE.sub(lambda m: _TEX[m.group(0)], text)


def escape_md(text: str) -> str:
    return _MD_RE.sub(r"\\\1", text)


class Writer:
    def __init__(self, lang: str, fmt: str) -> None:
        if lang not in LANGUAGES:
            raise MethodsInputError(
                f"language {lang!r}: the methods section is written in {', '.join(LANGUAGES)}"
            )
        if fmt not in FORMATS:
            raise MethodsInputError(f"format {fmt!r}: choose one of {', '.join(FORMATS)}")
        self.lang, self.fmt = lang, fmt
        self.words = _PHRASES[lang]
        self.escape: Callable[[str], str] = escape_tex if fmt == "tex" else escape_md

    def say(self, key: str, **values) -> str:
        """The phrase `key` with its fields filled by escaped values (None: 'undefined')."""
        template = self.words[key]
        if self.fmt == "tex":
            # The literal text is escaped; the {fields} are kept for format().
            template = "".join(
                part if _FIELD.fullmatch(part) else escape_tex(part)
                for part in _FIELD.split(template)
            )
        return template.format(**{name: self.value(value) for name, value in values.items()})

    def value(self, value) -> str:
        if value is None:
            return self.words["undefined"]
        if isinstance(value, Raw):
            return value.text
        return self.escape(str(value))

    def listing(self, names: list[str]) -> str:
        names = [self.escape(str(name)) for name in names]
        if len(names) < 2:
            return "".join(names)
        return self.words["list_sep"].join(names[:-1]) + self.words["and"] + names[-1]

    def join(self, parts: list[str]) -> str:
        """Phrases already written, as one list: "a, b and c" or "a、b、c"."""
        if self.lang != "en" or len(parts) < 2:
            return self.words["list_sep"].join(parts)
        return ", ".join(parts[:-1]) + " and " + parts[-1]

    def raw(self, text: str) -> "Raw":
        return Raw(text)

    def paragraph(self, head: str, body: str) -> str:
        head_text = self.say(head)
        if self.fmt == "tex":
            return f"\\paragraph{{{head_text}}} {body}"
        return f"**{head_text}** {body}"


class Raw:
    """A value already escaped (a list, or a phrase)."""

    def __init__(self, text: str) -> None:
        self.text = text
