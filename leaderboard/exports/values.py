"""Cell values shared by the export tables: plain str/int values, never a guessed 0."""

import csv
from collections.abc import Callable, Iterable

from leaderboard.stats.consensus import MAJORITY, TIE, majority

# Rows per fetch of the streamed exports.
CHUNK_SIZE = 500


def flag(value: bool | None) -> int | str:
    """1/0 for a boolean, "" for no value: never a guessed 0."""
    return "" if value is None else int(value)


def text(value) -> str:
    return "" if value is None else str(value)


def when(value) -> str:
    return "" if value is None else value.isoformat()


def consensus_cell(hits: list[bool]) -> int | str:
    if not hits:
        return "none"
    verdict = majority(hits)
    if verdict.outcome == MAJORITY:
        return int(verdict.label)
    return "tie" if verdict.outcome == TIE else "none"


def rater_name(pseudonym: dict[int, str], expert_id: int) -> str:
    # An expert since removed from the round keeps a pseudonym built from the id (never a name).
    return pseudonym.get(expert_id, f"E{expert_id}")


class _Echo:
    """A file-like object whose write() hands back what it is given, so csv.writer can
    format one row at a time."""

    def write(self, value: str) -> str:
        return value


def csv_writerow() -> Callable[[Iterable], str]:
    """csv.writer's writerow in the dialect of every CSV export: one row to its text."""
    return csv.writer(_Echo(), lineterminator="\n").writerow


_writerow = csv_writerow()


def _csv_text(value) -> str:
    # What csv.writer makes of a value before quoting: a str as it is, None as nothing, a
    # float by repr(), anything else by str().
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


# csv.writer quotes a field for its delimiter, its quote character and line breaks. The
# checks below look for more than it needs (Python 3.11 leaves a lone "\r" unquoted): a field
# that may need quoting is handed to csv.writer itself, so the text stays exactly its own.


def csv_cell(value) -> str:
    """One cell as csv.writer writes it in a row of several fields."""
    if value.__class__ is not str:
        value = _csv_text(value)
    if "," in value or '"' in value or "\n" in value or "\r" in value:
        return _writerow((value,))[:-1]  # a non-empty field alone, less the line terminator
    return value


def csv_join(values: Iterable) -> str:
    """Cells as one piece of a CSV line (no line terminator): what csv.writer writes for them
    within a row of several fields."""
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
