"""The Chinese catalogue follows docs/glossary.md: one translation per term (a "case" is a
题目), and none of the words the glossary rules out (案例, 命中/未命中, 份额)."""

import re
from pathlib import Path

from django.utils import translation
from django.utils.translation import gettext

from tests.i18n.catalogue import catalogue_entries

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary.md"
PLACEHOLDER = re.compile(r"%\(\w+\)[sdfi]|\{\w+\}|\b(?:upper|lower)-case\b")


def glossary_rows() -> list[dict]:
    text = GLOSSARY.read_text(encoding="utf-8")
    table = text[text.index("## Terms") :].split("\n## ")[0]
    rows = []
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("English", "---"):
            continue
        english, chinese, never, every, _notes = cells
        rows.append(
            {
                "english": english,
                "chinese": chinese,
                "never": [word for word in re.split(r"[,，、\s]+", never) if word],
                "every": every == "yes",
            }
        )
    return rows


def test_the_glossary_names_the_terms_the_issue_settled():
    rows = {row["english"]: row for row in glossary_rows()}
    assert rows["case"]["chinese"] == "题目" and rows["case"]["every"]
    assert "案例" in rows["case"]["never"]
    assert rows["criterion met (hit)"]["chinese"] == "符合"
    assert rows["criterion not met (miss)"]["chinese"] == "不符合"
    assert "命中" in rows["criterion met (hit)"]["never"]
    assert any("份额" in row["never"] for row in rows.values())


def test_no_translation_uses_a_word_the_glossary_rules_out():
    forbidden = {word: row["english"] for row in glossary_rows() for word in row["never"]}
    found = [
        f"line {entry.line}: {entry.msgid[:70]!r} -> {entry.msgstr[:50]!r} ({word}: use "
        f"the glossary's term for {forbidden[word]!r})"
        for entry in catalogue_entries()
        for word in forbidden
        if word in entry.msgstr
    ]
    assert not found, f"{len(found)} translations break docs/glossary.md:\n" + "\n".join(found)


def test_every_message_about_a_case_says_题目():
    found = []
    for row in glossary_rows():
        if not row["every"]:
            continue
        word = re.compile(rf"\b{re.escape(row['english'])}s?\b", re.I)
        for entry in catalogue_entries():
            english = PLACEHOLDER.sub("", f"{entry.msgid} {entry.msgid_plural}")
            if entry.msgstr and word.search(english) and row["chinese"] not in entry.msgstr:
                found.append(f"line {entry.line}: {entry.msgid[:70]!r} -> {entry.msgstr[:50]!r}")
    assert not found, "translations without the glossary's term:\n" + "\n".join(found)


def test_the_verdict_buttons_read_met_and_not_met():
    with translation.override("zh-hans"):
        assert gettext("Hit") == "符合"
        assert gettext("Miss") == "不符合"


BOARD = {
    "rows": [
        {
            "system": "S",
            "rank": 1,
            "overall": 50.0,
            "normal": 50.0,
            "hard": 50.0,
            "relative_decline": 0.0,
            "cases_scored": 1,
            "cases_failed": 0,
            "undefined": {},
            "ability_cells": [],
            "category_cells": [],
        }
    ],
    "abilities": [{"name": "Emotional Perception", "short": "EPe"}],
    "groups": [{"name": "Emotion", "abilities": [1]}],
}
NOTE = "Column heads are abbreviated: hover or focus one for the ability's full name."


def test_the_note_on_abbreviated_column_heads_is_english_only():
    """Under Chinese the heads are the abilities' full Chinese names: no note then."""
    from django.template.loader import render_to_string

    with translation.override("en"):
        assert NOTE in render_to_string("leaderboard/_board.html", {"board": BOARD})
    with translation.override("zh-hans"):
        html = render_to_string("leaderboard/_board.html", {"board": BOARD})
        assert 'id="heat-note"' in html
        assert NOTE not in html and gettext(NOTE) not in html
