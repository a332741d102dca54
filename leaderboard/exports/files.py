"""One export file, from its parameters to its bytes: the download view streams these bytes
to the browser and an export job writes the very same bytes to disk."""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from annotation.models import ReviewRound
from core import tables
from core.tables import csv_lines, csv_row
from judging.models import JudgeRun
from judging.scoring import Profile
from leaderboard.corrected.export import CORRECTED_HEADER, corrected_rows
from leaderboard.exports import headers
from leaderboard.exports.tables import case_score_rows, run_abilities, verdict_rows, votes_rows
from leaderboard.exports.tidy import tidy_csv_lines, tidy_rows

# "csv" is safe to open in a spreadsheet (text that would run as a formula gets a leading
# apostrophe, see `spreadsheet_text`); "csv-raw" and "jsonl" keep every text as it is, for
# analysis code.
CSV_SAFE, CSV_RAW, JSONL = "csv", "csv-raw", "jsonl"
FORMATS = (CSV_SAFE, CSV_RAW, JSONL)
# Not a format of the file but the record of what produced it (exports.provenance), served
# beside any of them as "<file name>.provenance.json".
PROVENANCE = "provenance"


def is_csv(fmt: str) -> bool:
    return fmt in (CSV_SAFE, CSV_RAW)


@dataclass(frozen=True)
class Kind:
    header: tuple[str, ...]
    needs_round: bool
    needs_run: bool


KINDS = {
    "tidy": Kind(headers.TIDY_HEADER, needs_round=True, needs_run=True),
    "votes": Kind(headers.VOTES_HEADER, needs_round=True, needs_run=False),
    "verdicts": Kind(headers.VERDICTS_HEADER, needs_round=False, needs_run=True),
    "scores": Kind(headers.SCORES_HEADER, needs_round=False, needs_run=True),
    "corrected": Kind(CORRECTED_HEADER, needs_round=True, needs_run=True),
}


def _with_header(header: Iterable[str], lines: Iterator[bytes]) -> Iterator[bytes]:
    # The header line as `csv_lines` writes it, then lines already written.
    yield csv_row(header).encode("utf-8")
    yield from lines


def _jsonl_lines(header: Iterable[str], rows: Iterable[list]) -> Iterator[bytes]:
    names = list(header)
    return tables.jsonl_lines(dict(zip(names, row, strict=True)) for row in rows)


def export_header_and_rows(
    *, kind: str, round_: ReviewRound | None, run: JudgeRun | None, profile: Profile
) -> tuple[tuple[str, ...], Iterator[list]]:
    """The file's column names and its rows. The scores file has one column per ability of
    the run, after the fixed ones."""
    header = KINDS[kind].header
    if kind == "tidy":
        return header, tidy_rows(round_=round_, run=run)
    if kind == "votes":
        return header, votes_rows(round_=round_)
    if kind == "verdicts":
        return header, verdict_rows(run=run)
    if kind == "corrected":
        return header, corrected_rows(round_=round_, run=run, profile=profile)
    abilities = run_abilities(run)
    columns = tuple(headers.ABILITY_COLUMN.format(label) for label in abilities)
    return header + columns, case_score_rows(run=run, profile=profile, abilities=abilities)


def export_lines(
    *, kind: str, fmt: str, round_: ReviewRound | None, run: JudgeRun | None, profile: Profile
) -> Iterator[bytes]:
    """The file's bytes, line by line (a CSV file starts with its header line)."""
    safe = fmt == CSV_SAFE
    if kind == "tidy" and is_csv(fmt):
        # The largest file by far has a writer of its own, the same bytes as `csv_lines`.
        header = KINDS[kind].header
        return _with_header(header, tidy_csv_lines(round_=round_, run=run, safe=safe))
    header, rows = export_header_and_rows(kind=kind, round_=round_, run=run, profile=profile)
    return _jsonl_lines(header, rows) if fmt == JSONL else csv_lines(header, rows, safe=safe)


def export_filename(
    *, slug: str, kind: str, fmt: str, round_id: int | None, run_id: int | None, profile: str
) -> str:
    parts = [slug, kind]
    if round_id is not None:
        parts.append(f"round{round_id}")
    if run_id is not None:
        parts.append(f"run{run_id}")
    if kind in ("scores", "corrected"):
        parts.append(profile)
    if fmt == CSV_RAW:
        parts.append("raw")
    if fmt == PROVENANCE:
        return "-".join(parts) + ".provenance.json"
    return "-".join(parts) + (".csv" if is_csv(fmt) else f".{fmt}")
