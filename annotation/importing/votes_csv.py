"""Votes collected outside the app: a CSV file, one expert verdict on one criterion per row.

    rater,question_id,system,criterion,hit[,note]

`criterion` is the 1-based position of the criterion in the rubric the expert judged and
`hit` is 0 or 1. The header row is required: it is what tells a votes file from a file of
something else, and it lets the columns come in any order.
"""

import csv
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from annotation.importing.issues import ImportIssue

BOM = b"\xef\xbb\xbf"
REQUIRED_COLUMNS = ("rater", "question_id", "system", "criterion", "hit")
OPTIONAL_COLUMNS = ("note",)
_POSITIVE_INTEGER = re.compile(r"[0-9]{1,9}")  # ASCII only: str.isdigit() also accepts "²"


@dataclass(frozen=True)
class VoteRow:
    line: int
    rater: str
    question_id: str
    system: str
    criterion: int
    hit: bool
    note: str = ""


class _DecodedLines:
    """Feeds the csv reader text lines, one per input line, and keeps the lines that are
    not UTF-8 as issues. A bad line is replaced by an empty one so that the reader's line
    count stays the file's line count."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self.chunks = chunks
        self.issues: list[ImportIssue] = []

    def __iter__(self) -> Iterator[str]:
        for number, raw in enumerate(self.chunks, start=1):
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.issues.append(
                    ImportIssue(
                        number,
                        f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column "
                        f"{exc.start + 1}); save the file as UTF-8",
                    )
                )
                yield "\n"


def _header_issues(header: list[str]) -> tuple[dict[str, int], list[ImportIssue]]:
    names = [name.strip().lower() for name in header]
    issues = []
    columns: dict[str, int] = {}
    for index, name in enumerate(names):
        if name not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS:
            issues.append(ImportIssue(1, f"unknown column {header[index].strip()!r}", "header"))
        elif name in columns:
            issues.append(ImportIssue(1, f"column {name!r} appears twice", "header"))
        else:
            columns[name] = index
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    if missing:
        issues.append(
            ImportIssue(
                1,
                f"missing column {', '.join(repr(m) for m in missing)}; the header must be "
                f"{','.join(REQUIRED_COLUMNS)}[,note]",
                "header",
            )
        )
    return columns, issues


def _parse_row(
    line: int, fields: list[str], columns: dict[str, int]
) -> VoteRow | list[ImportIssue]:
    """The row, or the issues of every bad field in it."""
    issues: list[ImportIssue] = []
    if len(fields) > len(columns):
        issues.append(
            ImportIssue(line, f"{len(fields)} fields, but the header names {len(columns)}")
        )

    def value(name: str) -> str | None:
        index = columns.get(name)
        if index is None:
            return ""  # the optional note column is absent from the file
        if index >= len(fields):
            if name in OPTIONAL_COLUMNS:
                return ""  # a trailing empty note may be left off
            issues.append(ImportIssue(line, "missing", name))
            return None
        if "\x00" in fields[index]:
            # PostgreSQL cannot store NUL in text: a located error, not a database error.
            issues.append(
                ImportIssue(line, "contains a NUL character, which cannot be stored", name)
            )
            return None
        return fields[index].strip()

    texts = {name: value(name) for name in ("rater", "question_id", "system")}
    for name, text in texts.items():
        if text == "":
            issues.append(ImportIssue(line, "must not be empty", name))
    criterion_text = value("criterion")
    if criterion_text is not None and (
        not _POSITIVE_INTEGER.fullmatch(criterion_text) or int(criterion_text) < 1
    ):
        issues.append(
            ImportIssue(
                line,
                f"must be a positive integer (the criterion's position), got {criterion_text!r}",
                "criterion",
            )
        )
    hit_text = value("hit")
    if hit_text is not None and hit_text not in ("0", "1"):
        issues.append(ImportIssue(line, f"must be 0 or 1, got {hit_text!r}", "hit"))
    note = value("note")
    if issues:
        return issues
    return VoteRow(
        line=line,
        rater=texts["rater"] or "",
        question_id=texts["question_id"] or "",
        system=texts["system"] or "",
        criterion=int(criterion_text or 0),
        hit=hit_text == "1",
        note=note or "",
    )


def _drain(issues: list[ImportIssue]) -> list[ImportIssue]:
    drained = list(issues)
    issues.clear()
    return drained


def read_vote_rows(chunks: Iterable[bytes]) -> Iterator[VoteRow | ImportIssue]:
    """Yield each vote row, or the issues that locate (line, field) why a row is unusable.

    Takes raw bytes lines, like the JSON Lines reader, so one bad byte is reported with
    its line instead of failing the whole file. A row is named by the line it starts on
    (a quoted note may run over several lines); the header is line 1. Blank rows are
    skipped.
    """
    lines = _DecodedLines(chunks)
    reader = csv.reader(iter(lines), strict=True)
    columns: dict[str, int] | None = None
    next_line = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            # The reader starts afresh on the next line: keep going to report the rest.
            yield from _drain(lines.issues)
            yield ImportIssue(next_line, f"not readable as CSV: {exc}")
            if columns is None:
                return  # the header itself
            next_line = reader.line_num + 1
            continue
        line, next_line = next_line, reader.line_num + 1
        yield from _drain(lines.issues)
        if columns is None:
            if not any(f.strip() for f in fields):  # blank rows read as []
                yield ImportIssue(1, "the header row is missing", "header")
                return
            columns, issues = _header_issues(fields)
            if issues:
                yield from issues
                return  # without a good header no row can be read reliably
            continue
        if not any(f.strip() for f in fields):
            continue
        parsed = _parse_row(line, fields, columns)
        if isinstance(parsed, VoteRow):
            yield parsed
        else:
            yield from parsed
    decoding = _drain(lines.issues)
    yield from decoding
    if columns is None and not decoding:
        yield ImportIssue(
            0, f"the file is empty; a votes file starts with {','.join(REQUIRED_COLUMNS)}"
        )


@dataclass
class RaterVotes:
    """One rater's votes on one response (a question answered by a system), by position."""

    rater: str
    question_id: str
    system: str
    rows: dict[int, VoteRow] = field(default_factory=dict)

    @property
    def line(self) -> int:
        return min(row.line for row in self.rows.values())

    @property
    def label(self) -> str:
        return f"{self.question_id} / {self.system}"

    def missing(self, size: int) -> list[int]:
        """Positions of a rubric of `size` criteria that this rater did not vote on."""
        return [position for position in range(1, size + 1) if position not in self.rows]


def group_votes(rows: Iterable[VoteRow]) -> tuple[list[RaterVotes], list[ImportIssue]]:
    """Each rater's votes per response, in file order; a second vote on the same criterion
    is an issue (a rater's change of mind is a later import, which keeps both)."""
    groups: dict[tuple[str, str, str], RaterVotes] = {}
    issues = []
    for row in rows:
        key = (row.rater, row.question_id, row.system)
        group = groups.setdefault(key, RaterVotes(*key))
        first = group.rows.setdefault(row.criterion, row)
        if first is not row:
            issues.append(
                ImportIssue(
                    row.line,
                    f"duplicate vote of rater {row.rater!r} on criterion {row.criterion} of "
                    f"{group.label} (first on line {first.line})",
                    "criterion",
                )
            )
    return list(groups.values()), issues
