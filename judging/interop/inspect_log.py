"""An Inspect AI eval log of a judging task, read without Inspect installed.

Inspect writes a log as one JSON document (`.json`) or as a zip (`.eval`) holding
`header.json` (the evaluation: task, model, generation settings, results) and one
`samples/<id>_epoch_<n>.json` per sample. The model evaluated is the judge: each sample is
one response to judge, named by its metadata (`question_id`, else the sample's id;
`system`), and its score is the judge's verdict on each criterion of the case's rubric:

    "scores": {"rubric_grader": {"value": {"1": "C", "2": "I", ...}, "explanation": "..."}}

keyed by criterion position (or a list in position order); a verdict is Inspect's "C"
(met) or "I" (not met), 1 or 0, true or false. Problems are named by the Nth sample
as "line N".
"""

import io
import json
import re
import struct
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import cramjam

from annotation.importing.issues import ImportIssue, ImportRejected, RowInvalid
from judging.services.judgments_import import JudgmentRow

_POSITION = re.compile(r"[1-9][0-9]{0,4}")


@dataclass(frozen=True)
class InspectSample:
    number: int
    system: str
    row: JudgmentRow


@dataclass
class InspectLog:
    task: str
    model: str
    generate_config: dict
    eval_id: str
    created: str
    scorer: str
    samples: list[InspectSample] = field(default_factory=list)

    def record(self) -> dict:
        """What the run keeps of the log, besides its verdicts."""
        return {
            "task": self.task,
            "eval_id": self.eval_id,
            "created": self.created,
            "model": self.model,
            "generate_config": self.generate_config,
            "scorer": self.scorer,
        }


def _reject(message: str, line: int = 0, where: str = "") -> ImportRejected:
    return ImportRejected([ImportIssue(line, message, where)])


def _load_json(raw: bytes, name: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _reject(f"{name} is not valid UTF-8") from exc
    except json.JSONDecodeError as exc:
        raise _reject(f"{name} is not readable as JSON: {exc.msg}", exc.lineno) from exc


def _sample_order(header: dict) -> dict[str, int]:
    ids = ((header.get("eval") or {}).get("dataset") or {}).get("sample_ids") or []
    return {str(pk): index for index, pk in enumerate(ids)}


# Inspect compresses a log's members with Zstandard (zip method 93), which Python's zipfile
# cannot read; cramjam (which fastparquet brings) can.
ZIP_ZSTANDARD = 93
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")


def _member(data: bytes, archive: zipfile.ZipFile, name: str) -> bytes:
    info = archive.getinfo(name)
    if info.compress_type != ZIP_ZSTANDARD:
        return archive.read(name)
    fields = _LOCAL_HEADER.unpack_from(data, info.header_offset)
    if fields[0] != b"PK\x03\x04":
        raise _reject(f"not readable as an Inspect .eval log: {name} has no local header")
    start = info.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1]
    raw = data[start : start + info.compress_size]
    try:
        return bytes(cramjam.zstd.decompress(raw))
    except cramjam.DecompressionError as exc:
        raise _reject(f"{name} cannot be decompressed: {exc}") from exc


def _read_zip(data: bytes) -> tuple[dict, list]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = archive.namelist()
        if "header.json" not in names:
            raise _reject("not an Inspect .eval log: the archive has no header.json")
        header = _load_json(_member(data, archive, "header.json"), "header.json")
        samples = [
            _load_json(_member(data, archive, name), name)
            for name in names
            if name.startswith("samples/") and name.endswith(".json")
        ]
    except (zipfile.BadZipFile, NotImplementedError, struct.error, OSError) as exc:
        raise _reject(f"not readable as an Inspect .eval log: {exc}") from exc
    if not isinstance(header, dict):
        raise _reject("not an Inspect log: header.json is not a JSON object")
    order = _sample_order(header)
    samples.sort(
        key=lambda s: (
            order.get(str(s.get("id")), len(order)) if isinstance(s, dict) else len(order),
            s.get("epoch", 0) if isinstance(s, dict) else 0,
        )
    )
    return header, samples


def _read(data: bytes) -> tuple[dict, list]:
    if data.startswith(b"PK"):
        return _read_zip(data)
    log = _load_json(data, "the log")
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise _reject("not an Inspect log: no 'eval' object")
    samples = log.get("samples")
    if not isinstance(samples, list):
        raise _reject("the log holds no samples (was it written with log_samples off?)")
    return log, samples


def _verdict(value: Any, where: str) -> bool:
    # bool before int: True is an int in Python.
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value in ("C", "I"):
        return value == "C"
    if type(value) in (int, float) and value in (0, 1):
        return value == 1
    raise RowInvalid(where, f"a verdict must be 'C', 'I', 1, 0, true or false, got {value!r}")


def _hits(value: Any, where: str) -> tuple[bool, ...]:
    if isinstance(value, list):
        return tuple(_verdict(v, f"{where}[{i}]") for i, v in enumerate(value))
    if not isinstance(value, dict):
        raise RowInvalid(
            where,
            "expected the verdict per criterion: an object keyed by criterion position, or "
            f"a list; got {value!r}"[:200],
        )
    positions = {}
    for key, item in value.items():
        if not _POSITION.fullmatch(str(key)):
            raise RowInvalid(f"{where}.{key}", "a key must be a criterion position (1, 2, ...)")
        positions[int(key)] = _verdict(item, f"{where}.{key}")
    missing = [n for n in range(1, len(positions) + 1) if n not in positions]
    if missing:
        raise RowInvalid(where, f"no verdict on criterion {', '.join(map(str, missing))}")
    return tuple(positions[n] for n in sorted(positions))


def _sample(
    number: int, sample: Any, scorer: str | None, system: str | None
) -> tuple[InspectSample, str]:
    if not isinstance(sample, dict):
        raise RowInvalid("", "a sample must be a JSON object")
    metadata = sample.get("metadata") if isinstance(sample.get("metadata"), dict) else {}
    question_id = str(metadata.get("question_id") or sample.get("id") or "").strip()
    if not question_id:
        raise RowInvalid("metadata.question_id", "missing, and the sample has no id")
    named = str(metadata.get("system") or system or "").strip()
    if not named:
        raise RowInvalid("metadata.system", "missing: name the system (--system)")
    scores = sample.get("scores")
    if not isinstance(scores, dict) or not scores:
        raise RowInvalid("scores", "the sample was not scored")
    if scorer is None:
        if len(scores) > 1:
            raise RowInvalid(
                "scores", f"several scorers ({', '.join(sorted(scores))}): name one (--scorer)"
            )
        scorer = next(iter(scores))
    score = scores.get(scorer)
    if not isinstance(score, dict):
        raise RowInvalid("scores", f"no score of scorer {scorer!r}")
    hits = _hits(score.get("value"), f"scores.{scorer}.value")
    explanation = score.get("explanation")
    reason = explanation if isinstance(explanation, str) else ""
    row = JudgmentRow(question_id=question_id, hits=hits, reason=reason.replace("\x00", ""))
    return InspectSample(number, named, row), scorer


def read_inspect_log(
    data: bytes, *, scorer: str | None = None, system: str | None = None
) -> tuple[InspectLog, list[ImportIssue]]:
    """The log's evaluation and its samples as judgments, with the issue of every sample
    that cannot be read. Raises ImportRejected when the file is not a finished log."""
    header, samples = _read(data)
    evaluation = header["eval"] if isinstance(header.get("eval"), dict) else {}
    status = header.get("status")
    if status != "success":
        raise _reject(
            f"the evaluation's status is {status!r}: only a finished ('success') log imports"
        )
    model = evaluation.get("model")
    if not isinstance(model, str) or not model.strip():
        raise _reject("the log names no model", where="eval.model")
    config = evaluation.get("model_generate_config")
    if not isinstance(config, dict):
        plan = header.get("plan")
        config = plan.get("config") if isinstance(plan, dict) else None
    log = InspectLog(
        task=str(evaluation.get("task") or ""),
        model=model.strip(),
        generate_config=config if isinstance(config, dict) else {},
        eval_id=str(evaluation.get("eval_id") or ""),
        created=str(evaluation.get("created") or ""),
        scorer=scorer or "",
    )
    issues: list[ImportIssue] = []
    for number, sample in enumerate(samples, start=1):
        try:
            read, used = _sample(number, sample, scorer or log.scorer or None, system)
        except RowInvalid as exc:
            issues.append(ImportIssue(number, exc.message, exc.field))
            continue
        log.scorer = log.scorer or used
        log.samples.append(read)
    if not samples:
        issues.append(ImportIssue(0, "the log holds no samples"))
    return log, issues


def samples_by_system(log: InspectLog) -> Iterator[tuple[str, list[InspectSample]]]:
    groups: dict[str, list[InspectSample]] = {}
    for sample in log.samples:
        groups.setdefault(sample.system, []).append(sample)
    yield from sorted(groups.items())
