"""HealthBench's grader output, read as judgments (import_judgments --format healthbench).

One example per line, as HealthBench's `healthbench_eval.py` records each graded example:

    {"prompt_id": "...", "rubric_items": [
        {"criterion": "...", "points": 10, "tags": ["axis:accuracy"],
         "criteria_met": true, "explanation": "..."}, ...]}

one rubric item per criterion of the case's current rubric, in order. `criteria_met` is the
grader's verdict (true: the described behaviour happened), `explanation` its reasoning for
that criterion. A `criterion` text, when given, must be the text of the criterion at that
position, so verdicts are never paired with the wrong criteria. Other fields (`score`,
`prompt`, `completion`, `usage`, ...) are not read. The whole-run file simple-evals writes
(`..._allresults.json`, one JSON document) is read too: its examples are these lines.
"""

import json
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

from annotation.importing.fields import refuse_nul, require_list, require_object, require_string
from annotation.importing.fields import type_name as _type_name
from annotation.importing.issues import RowInvalid
from annotation.importing.issues import _ as _
from annotation.importing.jsonl import BOM
from judging.services.judgments_import import JudgmentRow


def _optional_text(item: dict, key: str, field: str) -> str | None:
    value = item.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise RowInvalid(field, _("expected a string, got %(type)s", type=_type_name(value)))
    return refuse_nul(value, field)


def parse_healthbench_judgment(value: Any) -> JudgmentRow:
    row = require_object(value)
    if "prompt_id" not in row and "question_id" in row:
        raise RowInvalid(
            "prompt_id",
            _("missing; this row looks like a HeartBench scored file (import it without --format)"),
        )
    prompt_id = require_string(row, "prompt_id", strip=True)
    hits = []
    texts = []
    explanations = []
    for index, item in enumerate(require_list(row, "rubric_items")):
        prefix = f"rubric_items[{index}]."
        item = require_object(item, f"rubric_items[{index}]")
        if "criteria_met" not in item:
            raise RowInvalid(prefix + "criteria_met", _("missing"))
        met = item["criteria_met"]
        if not isinstance(met, bool):
            raise RowInvalid(
                prefix + "criteria_met",
                _("must be true or false, got %(type)s", type=_type_name(met)),
            )
        hits.append(met)
        texts.append(_optional_text(item, "criterion", prefix + "criterion"))
        explanations.append(_optional_text(item, "explanation", prefix + "explanation") or "")
    return JudgmentRow(
        question_id=prompt_id,
        hits=tuple(hits),
        reason="",
        criterion_texts=tuple(texts),
        explanations=tuple(explanations),
    )


def healthbench_grader_lines(chunks: Iterable[bytes]) -> tuple[Iterator[bytes], bool]:
    """The graded examples of a file as JSON lines, and whether the file was the one JSON
    document simple-evals writes of a whole run (`..._allresults.json`: the examples under
    `metadata.example_level_metadata`); then "line N" names its Nth example. Any other file
    is given back line by line, to be read (and its errors named) as JSON Lines."""
    lines = iter(chunks)
    head: list[bytes] = []
    for raw in lines:
        head.append(raw)
        if raw.strip():
            break
    first = head[-1].strip() if head else b""
    if first.startswith(BOM):
        first = first[len(BOM) :].strip()
    if first != b"{":
        return chain(head, lines), False
    whole = b"".join(chain(head, lines))
    try:
        document = json.loads(whole.decode("utf-8-sig"))
        examples = document["metadata"]["example_level_metadata"]
    except (ValueError, TypeError, KeyError, RecursionError):
        return iter(whole.splitlines(keepends=True)), False
    if not isinstance(examples, list):
        return iter(whole.splitlines(keepends=True)), False
    return (json.dumps(example, ensure_ascii=False).encode("utf-8") for example in examples), True
