"""The CSV dialect of every export, and the tidy file's writer of its own (its bytes must be
the general writer's to the byte). Every file reads back with the csv module field for
field, whatever the text holds."""

import csv
import io
import uuid
from decimal import Decimal

import pytest

from annotation.models import (
    Ability,
    Assignment,
    Case,
    Category,
    Criterion,
    ReviewRound,
    Scenario,
    System,
    Vote,
)
from core.tables import csv_cell, csv_join, csv_row
from judging.models import JudgeRun, JudgeTask, Verdict
from judging.scoring import Profile
from leaderboard.exports.files import csv_lines, export_lines
from leaderboard.exports.headers import TIDY_HEADER
from leaderboard.exports.tidy import tidy_rows
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)


class _Echo:
    def write(self, value: str) -> str:
        return value


_CRLF_ROW = csv.writer(_Echo(), lineterminator="\r\n").writerow


def WRITEROW(values) -> str:
    """The reference: csv.writer quotes a field holding a character of its line terminator,
    so with "\r\n" it quotes just what the exports quote (a comma, a double quote, "\n" or
    "\r"); the exports end their lines in "\n"."""
    return _CRLF_ROW(values)[:-2] + "\n"


def _read(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


AWKWARD = [
    "",
    " ",
    " padded ",
    "a,b",
    ",",
    '"',
    'say "hi"',
    '"quoted"',
    "line\nbreak",
    "carriage\rreturn",
    "both\r\n",
    "\n",
    "tab\there",
    "全角，逗号",
    "emoji 🙂",
    "'single'",
    "semi;colon",
    "back\\slash",
]


def test_cells_are_quoted_as_csv_writer_quotes_for_crlf_lines():
    # Every character once, between two others, in a row of several fields.
    for code in range(0x110000):
        value = f"a{chr(code)}b"
        assert csv_join([value, "x"]) + "\n" == WRITEROW([value, "x"]), hex(code)
    values = [
        *AWKWARD,
        "nul\x00byte",  # (no database keeps it)
        None,
        0,
        -10,
        3,
        True,
        False,
        1.5,
        0.1,
        1e-7,
        1e22,
        float("inf"),
        float("nan"),
        Decimal("1.50"),
        uuid.UUID("12345678-1234-5678-1234-567812345678"),
        JudgeTask.Status.DONE,  # a str subclass
        System.Kind.LLM,
    ]
    for value in values:
        assert csv_join([value, 1]) + "\n" == WRITEROW([value, 1]), repr(value)
        assert csv_join([1, value]) + "\n" == WRITEROW([1, value]), repr(value)
        assert f"{csv_cell(value)},1\n" == WRITEROW([value, 1]), repr(value)
    assert csv_join(values) + "\n" == WRITEROW(values)
    assert csv_join(AWKWARD) + "\n" == WRITEROW(AWKWARD)
    assert csv_row(AWKWARD) == WRITEROW(AWKWARD) and csv_row([""]) == WRITEROW([""])


def test_every_awkward_text_reads_back_as_one_field_of_one_row():
    # A lone "\r" too: csv.writer with "\n" line ends leaves it unquoted, and readers split
    # the row there.
    text = "".join(csv_row([value, "next"]) for value in AWKWARD)
    assert _read(text) == [[value, "next"] for value in AWKWARD]
    assert _read(csv_row(AWKWARD)) == [AWKWARD]
    assert _read(csv_row([""])) == [[""]]


def _awkward_world(round_: ReviewRound) -> None:
    """Free text with every character csv.writer quotes, in every kind of cell."""
    ReviewRound.objects.filter(pk=round_.pk).update(name='Round "1", pilot')
    System.objects.update(name="Sys,\ntwo")
    Case.objects.filter(external_id="c1").update(external_id='c"1"')
    Scenario.objects.update(primary="职场,心理", secondary="")
    Category.objects.update(name_en='Cat "A"')
    Ability.objects.filter(label="好奇心").update(label="好奇心,\r开放")
    for n, vote in enumerate(Vote.objects.order_by("pk")):
        Vote.objects.filter(pk=vote.pk).update(note=AWKWARD[n % len(AWKWARD)])
    for n, verdict in enumerate(Verdict.objects.order_by("pk")):
        Verdict.objects.filter(pk=verdict.pk).update(reasoning=AWKWARD[(3 * n) % len(AWKWARD)])
    Assignment.objects.filter(pk=Assignment.objects.order_by("pk").first().pk).update(
        active_seconds=0
    )
    # A unit nobody voted on, and a failed judge task (its verdicts stay but never show).
    Vote.objects.filter(
        criterion__position=2, assignment__item__response__case__external_id='c"1"'
    ).delete()
    JudgeTask.objects.filter(case__external_id="c2").update(status=JudgeTask.Status.FAILED)


def _file(round_, run) -> list[bytes]:
    return list(
        export_lines(kind="tidy", fmt="csv", round_=round_, run=run, profile=Profile.HEARTBENCH)
    )


@pytest.mark.django_db
def test_the_tidy_csv_is_the_general_writers_to_the_byte_and_reads_back(data, monkeypatch):  # noqa: F811
    round_, run = data
    _awkward_world(round_)
    round_ = ReviewRound.objects.get(pk=round_.pk)
    rows = list(tidy_rows(round_=round_, run=run))
    expected = b"".join(csv_lines(TIDY_HEADER, rows))
    chunks = _file(round_, run)
    assert b"".join(chunks) == expected
    # One chunk per line: export jobs count the rows by the chunks.
    assert len(chunks) == len(rows) + 1
    named = [dict(zip(TIDY_HEADER, row, strict=True)) for row in rows]
    assert {"a,b", "line\nbreak"} <= {row["rater_note"] for row in named}
    assert any("\r" in (row["rater_note"] or "") + (row["judge_reasoning"] or "") for row in named)
    assert b'"a,b"' in expected and b'"say ""hi"""' in expected
    read = _read(expected.decode())
    assert read[0] == list(TIDY_HEADER) and len(read) == len(rows) + 1
    for column in ("rater_note", "judge_reasoning"):
        at = TIDY_HEADER.index(column)
        assert [line[at] for line in read[1:]] == [row[column] or "" for row in named]
    # A lone "\r" (no comma, quote or "\n" beside it) is in the file, and read back whole.
    assert "carriage\rreturn" in {row["rater_note"] for row in named} | {
        row["judge_reasoning"] for row in named
    }
    assert any(row["rater"] is None for row in named)
    assert {row["judge_status"] for row in named} == {"done", "failed"}
    assert Criterion.objects.filter(weight__isnull=True).exists()

    # Page after page, the same bytes.
    monkeypatch.setattr("leaderboard.exports.tidy.CHUNK_SIZE", 1)
    assert b"".join(_file(round_, run)) == expected


@pytest.mark.django_db
def test_a_run_without_tasks_for_the_round_leaves_every_judge_cell_missing(data):  # noqa: F811
    # A page of items none of whose responses has a done task reads no verdicts (an empty
    # list of task ids used to stop the export).
    round_, run = data
    other = JudgeRun.objects.create(benchmark=run.benchmark, judge_version=run.judge_version)
    rows = [dict(zip(TIDY_HEADER, r, strict=True)) for r in tidy_rows(round_=round_, run=other)]
    assert len(rows) == 2 * 4 * 3
    assert {(r["judge_status"], r["judge_hit"], r["judge_reasoning"]) for r in rows} == {
        ("missing", None, None)
    }
    assert b"".join(_file(round_, other)) == b"".join(
        csv_lines(TIDY_HEADER, tidy_rows(round_=round_, run=other))
    )
