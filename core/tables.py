"""The one table writer of every download and exported file (no Django here): the CSV
dialect, spreadsheet-safe text cells, JSON Lines rows, and the bytes regrouped in blocks
for streaming. A download and the file an export job writes are the same bytes."""

import csv
import json
import re
from collections.abc import Iterable, Iterator

# Spreadsheets (Excel, LibreOffice, Google Sheets, WPS) run a cell that begins with one of
# these as a formula; a tab or carriage return in front is skipped before they look.
FORMULA_START = frozenset("=+-@\t\r")
# A number written as text ("-4", "+1.5", "-2e3"): a spreadsheet reads it as that number,
# never as a formula, so it stays as it is.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")

# A WSGI server writes each piece it is given to the socket on its own (gunicorn: one
# system call and one chunk of chunked encoding per piece), so a file of 500,000 lines
# handed over line by line spends most of its time there. Blocks of this size cost one
# write each and still keep memory flat.
BLOCK_SIZE = 64 * 1024

CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
JSONL_CONTENT_TYPE = "application/x-ndjson"


def spreadsheet_text(value: str) -> str:
    """A text cell as the spreadsheet-safe CSV writes it: one that a spreadsheet would run
    as a formula gets an apostrophe in front (shown as text, never run); anything else,
    plain numbers included, is left as it is."""
    if value[:1] in FORMULA_START and _PLAIN_NUMBER.fullmatch(value) is None:
        return "'" + value
    return value


def spreadsheet_cells(values: Iterable) -> list:
    """A row's cells with every text cell made spreadsheet-safe; numbers, None and other
    values are untouched."""
    return [
        spreadsheet_text(value) if isinstance(value, str) and value[:1] in FORMULA_START else value
        for value in values
    ]


class _Echo:
    def write(self, value: str) -> str:
        return value


# The dialect: the csv module's minimal quoting, lines ending in "\n", and a field quoted
# for a comma, a double quote, "\n" or "\r". A writer quotes a field holding a character of
# its line terminator, so one writing "\r\n" quotes exactly these; with "\n" it would leave
# a lone "\r" unquoted (Python 3.11), and readers (the csv module, pandas, spreadsheets)
# then split the field, and its row, in two. Every line is written with "\r\n" and ends in
# "\n". No byte-order mark: these files feed analysis code (pandas, R, the csv module),
# where a BOM silently becomes part of the first column's name.
_WRITEROW = csv.writer(_Echo(), lineterminator="\r\n").writerow


def csv_join(values: Iterable) -> str:
    """Cells as one piece of a CSV line (no line terminator)."""
    return _WRITEROW(values)[:-2]


def csv_cell(value) -> str:
    """One cell as it is written in a row of several fields."""
    # Beside a second (empty) field: a lone empty field is quoted, one among others not.
    return _WRITEROW((value, None))[:-3]


def csv_row(values: Iterable) -> str:
    """One whole CSV line, with its terminator (a lone empty field is written as "")."""
    return _WRITEROW(values)[:-2] + "\n"


def csv_lines(
    header: Iterable[str], rows: Iterable[Iterable], *, safe: bool = False
) -> Iterator[bytes]:
    """The header line, then one line per row, in UTF-8; `safe` for the spreadsheet-safe
    CSV (see `spreadsheet_text`). One chunk per row: export jobs count rows by chunks."""
    yield csv_row(header).encode("utf-8")
    for row in rows:
        yield csv_row(spreadsheet_cells(row) if safe else row).encode("utf-8")


def jsonl_line(value, *, sort_keys: bool = False) -> bytes:
    """One JSON Lines row: the value in compact-spaced JSON, non-ASCII text as it is."""
    return (json.dumps(value, ensure_ascii=False, sort_keys=sort_keys) + "\n").encode("utf-8")


def jsonl_lines(rows: Iterable, *, sort_keys: bool = False) -> Iterator[bytes]:
    """One JSON Lines row per value."""
    for row in rows:
        yield jsonl_line(row, sort_keys=sort_keys)


def in_blocks(pieces: Iterable[bytes | str], size: int = BLOCK_SIZE) -> Iterator[bytes]:
    """The same bytes as `pieces` (str pieces in UTF-8), regrouped: first an empty piece, on
    which the server sends the status line and headers at once (the download starts before
    the first query has answered), then the first piece alone (a CSV file's header line),
    then blocks of at least `size` bytes, the last one shorter."""
    yield b""
    block: list[bytes] = []
    length = 0
    first = True
    for piece in pieces:
        if piece.__class__ is str:
            piece = piece.encode("utf-8")
        if first:
            first = False
            yield piece
            continue
        block.append(piece)
        length += len(piece)
        if length >= size:
            yield b"".join(block)
            block = []
            length = 0
    if block:
        yield b"".join(block)
