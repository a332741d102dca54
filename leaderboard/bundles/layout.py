"""The files of an evidence bundle and how their rows are read (no Django here): the
builder writes them, the verifier reads them back, both through these names."""

import csv
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

FORMAT = "concord-evidence-bundle"
VERSION = 1

MANIFEST = "manifest.json"
BOARD_JSON = "board.json"
BOARD_CSV = "board.csv"
JUDGE_VERSION = "judge_version.json"
RUBRICS = "rubrics.jsonl"
TAXONOMY = "taxonomy.json"
VERDICTS = "verdicts.jsonl"  # the board's verdicts
EVALUATION_DIR = "evaluations/{id}/"
EVALUATION = "evaluation.json"
REPORT_JSON = "report.json"
REPORT_PDF = "report.pdf"
ITEMS = "items.csv"
VOTES = "votes.csv"
EVALUATION_VERDICTS = "verdicts.jsonl"  # the evaluated run's verdicts on the round

ITEM_FIELDS = ["question_id", "system", "rubric_version"]
VOTE_FIELDS = ["question_id", "system", "criterion", "rater", "hit"]


def json_bytes(value) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def jsonl_bytes(rows: Iterable[dict]) -> bytes:
    return b"".join(
        (json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n").encode() for row in rows
    )


def csv_bytes(header: list[str], rows: Iterable[Iterable]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()


def read_jsonl(data: bytes) -> Iterator[dict]:
    for line in data.decode("utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def read_csv(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


@dataclass(frozen=True)
class RubricCriterion:
    position: int
    ability: str
    weight: int | None
    catastrophic: bool


def rubric_key(question_id: str, version: int) -> tuple[str, int]:
    return (question_id, int(version))
