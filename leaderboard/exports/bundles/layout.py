"""The files of an evidence bundle and how their rows are read (no Django here): the
builder writes them, the verifier reads them back, both through these names."""

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from core.tables import csv_lines, jsonl_lines

FORMAT = "concord-evidence-bundle"
# 2: items carry their hand-out rank, evaluations the round's raters per item and the
# rubrics' digests, the board its gate policy; response texts; an optional signature.
# 3: the guidance the experts read while they voted (its digests in the manifest) and the
# raters' calibration results.
# 4: a board published with a correcting round carries its corrected board and the round's
# items (with their inclusion probabilities), votes, frame and the weights used (corrected/);
# items carry their recorded inclusion probability.
VERSION = 4

MANIFEST = "manifest.json"
BOARD_JSON = "board.json"
BOARD_CSV = "board.csv"
JUDGE_VERSION = "judge_version.json"
RUBRICS = "rubrics.jsonl"
TAXONOMY = "taxonomy.json"
VERDICTS = "verdicts.jsonl"  # the board's verdicts
RESPONSES = "responses.jsonl"  # the text of every response judged or rated
JUDGE_CALLS = "judge_calls.jsonl"  # per task an LLM judged: request, raw reply (bundles.calls)
RUNS = "runs.json"  # the runs read: settings as started, output mode, the probes' records
# What `bundle --lean` leaves out, as its manifest's `left_out` says (verify_bundle skips the
# judge-call check of a bundle that says so, and fails one that lacks these files without).
LEAN_FILES = (RESPONSES, JUDGE_CALLS)
LEAN_LEFT_OUT = (
    "the response texts, the exact messages sent to the judge and its raw replies "
    "(responses.jsonl, judge_calls.jsonl): a lean bundle, written with --lean; re-judging "
    "needs the full bundle"
)
GUIDANCE = "guidance.json"  # guidelines, FAQ and worked examples as the experts read them
CALIBRATION = "calibration.json"  # the bundled raters' results on reference items
SIGNATURE = "signature.json"  # the manifest's signature (not listed in the manifest)
EVALUATION_DIR = "evaluations/{id}/"
EVALUATION = "evaluation.json"
REPORT_JSON = "report.json"
REPORT_PDF = "report.pdf"
ITEMS = "items.csv"
VOTES = "votes.csv"
EVALUATION_VERDICTS = "verdicts.jsonl"  # the evaluated run's verdicts on the round
FRAME = "frame.csv"  # the round's sampling frame (leaderboard.exports.bundles.frame)
# The corrected board of a board published with a correcting round (leaderboard.corrected),
# and what it is recomputed from besides the board's verdicts and the rubrics.
CORRECTED_DIR = "corrected/"
CORRECTED = CORRECTED_DIR + "board.json"
CORRECTED_ITEMS = CORRECTED_DIR + "items.csv"
CORRECTED_VOTES = CORRECTED_DIR + "votes.csv"  # the round's votes as they stood at publication
CORRECTED_FRAME = CORRECTED_DIR + FRAME
CORRECTED_WEIGHTS = CORRECTED_DIR + "weights.csv"  # each judged response's chance and weight

# Rows in the order the report read the items; `item` numbers them in hand-out order (rank,
# then the order of their responses), which the sequential test follows.
ITEM_FIELDS = [
    "item",
    "question_id",
    "system",
    "rubric_version",
    "hand_out_rank",
    "response",  # the response's id, which the seeded sample and hand-out order shuffle
    "inclusion_probability",  # as the round recorded it (empty: not recorded)
]
CORRECTED_ITEM_FIELDS = [
    "question_id",
    "system",
    "rubric_version",  # the version the round froze
    "reference",
    "inclusion_probability",
    "response",
]
CORRECTED_WEIGHT_FIELDS = ["system", "question_id", "labelled", "inclusion_probability", "weight"]
FRAME_FIELDS = [
    "response",
    "question_id",
    "system",
    "system_id",
    "difficulty",
    "primary_scene",
    "sampled",
    # The share drawn from its stratum; under the uncertainty design, the response's own
    # chance as recorded when the round opened, drawn or not.
    "inclusion_probability",
]
VOTE_FIELDS = ["question_id", "system", "criterion", "rater", "hit"]


def canonical_sha256(value) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rubric_digest(line: dict) -> str:
    """The SHA-256 of a rubric version as the bundle writes it (criteria, dialogue, labels)."""
    return canonical_sha256(line)


def file_list(files: dict[str, bytes]) -> dict[str, dict]:
    """The manifest's list of `files`: each name with its SHA-256 and size."""
    return {
        name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        for name, data in sorted(files.items())
    }


def content_sha256(files: dict[str, dict]) -> str:
    """The bundle's hash for citing: the SHA-256 of the manifest's file list (every file's
    name, size and SHA-256), so it names the content whatever key signed it and when."""
    return canonical_sha256(files)


def json_bytes(value) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


def jsonl_bytes(rows: Iterable[dict]) -> bytes:
    return b"".join(jsonl_lines(rows, sort_keys=True))


def csv_bytes(header: list[str], rows: Iterable[Iterable]) -> bytes:
    # Raw, never spreadsheet-safe: the verifier compares these cells with the JSON files.
    return b"".join(csv_lines(header, rows))


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
