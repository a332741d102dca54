"""The Chinese catalogue read as entries (msgid, plural and every msgstr joined), without a
gettext library: the file's own syntax is small."""

import ast
import re
from dataclasses import dataclass
from pathlib import Path

CATALOG = Path(__file__).resolve().parents[2] / "locale/zh_Hans/LC_MESSAGES/django.po"
_LINE = re.compile(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+(".*")\s*$')


@dataclass
class Entry:
    msgid: str
    msgid_plural: str
    msgstr: str  # every form, joined by a newline
    line: int


def catalogue_entries(path: Path = CATALOG) -> list[Entry]:
    entries: list[Entry] = []
    fields: dict[str, str] = {}
    current = ""
    start = 0

    def flush():
        if fields.get("msgid"):
            forms = [v for k, v in fields.items() if k.startswith("msgstr")]
            entries.append(
                Entry(fields["msgid"], fields.get("msgid_plural", ""), "\n".join(forms), start)
            )
        fields.clear()

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):  # comments, and obsolete entries (#~)
            if fields and current.startswith("msgstr"):
                flush()
            current = ""
            continue
        match = _LINE.match(line)
        if match:
            key, value = match.groups()
            if key in ("msgctxt", "msgid") and current.startswith("msgstr"):
                flush()
            if not fields:
                start = number
            current = key
            fields[key] = ast.literal_eval(value)
        elif line.startswith('"') and current:
            fields[current] += ast.literal_eval(line)
    flush()
    return entries
