"""Cell values shared by the export tables: plain str/int values, never a guessed 0."""

from collections.abc import Iterable

from config.spreadsheet import FORMULA_START, spreadsheet_text

# Rows per fetch of the streamed exports.
CHUNK_SIZE = 500


def flag(value: bool | None) -> int | None:
    """1/0 for a boolean, None for no value (empty in CSV, null in JSON): never a guessed 0."""
    return None if value is None else int(value)


def text(value) -> str:
    return "" if value is None else str(value)


def when(value) -> str:
    return "" if value is None else value.isoformat()


def rater_name(pseudonym: dict[int, str], expert_id: int) -> str:
    # Every rater of the round has one, an expert since removed from it too.
    return pseudonym[expert_id]


def _csv_text(value) -> str:
    # A value's text, as csv.writer makes it before quoting: a str as it is, None as nothing, a
    # float by repr(), anything else by str().
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


# The dialect of every CSV export: csv.writer's minimal quoting, lines ending in "\n", and a
# field quoted for a comma, a double quote, "\n" or "\r". csv.writer itself (Python 3.11)
# leaves a lone "\r" unquoted when lines end in "\n", and readers (the csv module, pandas,
# spreadsheets) then split the field, and its row, in two.


def spreadsheet_cells(values: Iterable) -> list:
    """A row's cells with every text cell made spreadsheet-safe; numbers, None and other
    values are untouched."""
    return [
        spreadsheet_text(value) if isinstance(value, str) and value[:1] in FORMULA_START else value
        for value in values
    ]


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def csv_cell(value) -> str:
    """One cell as it is written in a row of several fields."""
    if value.__class__ is not str:
        value = _csv_text(value)
    if "," in value or '"' in value or "\n" in value or "\r" in value:
        return _quoted(value)
    return value


def csv_join(values: Iterable) -> str:
    """Cells as one piece of a CSV line (no line terminator)."""
    cells = [value if value.__class__ is str else _csv_text(value) for value in values]
    line = ",".join(cells)
    # Mostly nothing to quote, which one look at the whole line tells: no commas but the
    # separators, no quote or line break.
    if (
        line.count(",") == len(cells) - 1
        and '"' not in line
        and "\n" not in line
        and "\r" not in line
    ):
        return line
    return ",".join([csv_cell(cell) for cell in cells])


def csv_row(values: Iterable) -> str:
    """One whole CSV line, with its terminator."""
    cells = list(values)
    if len(cells) == 1 and _csv_text(cells[0]) == "":
        return '""\n'  # a lone empty field, quoted so the line is not read as blank
    return csv_join(cells) + "\n"
