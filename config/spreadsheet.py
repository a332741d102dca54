"""Spreadsheet-safe text cells, shared by every CSV export (of any app)."""

import re

# Spreadsheets (Excel, LibreOffice, Google Sheets, WPS) run a cell that begins with one of
# these as a formula; a tab or carriage return in front is skipped before they look.
FORMULA_START = frozenset("=+-@\t\r")
# A number written as text ("-4", "+1.5", "-2e3"): a spreadsheet reads it as that number,
# never as a formula, so it stays as it is.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_text(value: str) -> str:
    """A text cell as the spreadsheet-safe CSV writes it: one that a spreadsheet would run
    as a formula gets an apostrophe in front (shown as text, never run); anything else,
    plain numbers included, is left as it is."""
    if value[:1] in FORMULA_START and _PLAIN_NUMBER.fullmatch(value) is None:
        return "'" + value
    return value
