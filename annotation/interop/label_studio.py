"""Label Studio's JSON task format, as Concord writes and reads it.

A round becomes one Label Studio task per item. The labelling config has, for each
criterion position n, a `Choices` control `criterion_n` (alias "1": met, "0": not met) and a
`TextArea` control `note_n`, both about the `response` text; the criterion's wording is the
task's `criterion_n` data field. The task's `question_id` and `system` name the response;
the config does not show them, so a rater working in Label Studio stays blind to the system.

Each annotation is one rater's submission: `completed_by` names the rater, `result` holds a
region per vote (and per note). Reading checks the whole file and reports every problem by
the line its task starts on and the task's number; the rows it yields go to the votes import
(annotation.services.votes_import), which applies the same rules as to a CSV of votes.
"""

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

from annotation.importing.issues import ImportIssue
from annotation.importing.votes_csv import VoteRow

MET, NOT_MET = "1", "0"
# Whoever answers a reference item: its known answers, marked as Label Studio's ground
# truth. They are the round's answer key, not a rater's votes, and are not read back as votes.
REFERENCE_RATER = "reference"
# The aliases Concord writes, and the labels a person may have typed instead of them.
_HITS = {MET: True, NOT_MET: False, "met": True, "not met": False, "符合": True, "不符合": False}
_CONTROL = re.compile(r"(criterion|note)_([1-9][0-9]{0,4})")
BOM = b"\xef\xbb\xbf"


def criterion_control(position: int) -> str:
    return f"criterion_{position}"


def note_control(position: int) -> str:
    return f"note_{position}"


@dataclass(frozen=True)
class ConfigLabels:
    """The words a rater reads in Label Studio, in the language of the export."""

    met: str
    not_met: str
    note: str
    response: str


def label_config(*, positions: int, labels: ConfigLabels) -> str:
    """The labelling config (XML) for rubrics of up to `positions` criteria."""
    parts = [
        "<View>",
        '  <Paragraphs name="dialogue" value="$dialogue" layout="dialogue" '
        'nameKey="role" textKey="content"/>',
        f"  <Header value={quoteattr(labels.response)}/>",
        '  <Text name="response" value="$response"/>',
    ]
    for position in range(1, positions + 1):
        criterion, note = criterion_control(position), note_control(position)
        parts += [
            "  <View>",
            f'    <Header value="${criterion}"/>',
            f'    <Choices name="{criterion}" toName="response" choice="single-radio" '
            'showInline="true">',
            f"      <Choice value={quoteattr(labels.met)} alias={quoteattr(MET)}/>",
            f"      <Choice value={quoteattr(labels.not_met)} alias={quoteattr(NOT_MET)}/>",
            "    </Choices>",
            f'    <TextArea name="{note}" toName="response" maxSubmissions="1" '
            f'editable="true" placeholder={quoteattr(labels.note)}/>',
            "  </View>",
        ]
    parts.append("</View>")
    return "\n".join(parts) + "\n"


def choice_region(position: int, hit: bool, region_id: str) -> dict:
    return {
        "id": region_id,
        "from_name": criterion_control(position),
        "to_name": "response",
        "type": "choices",
        "origin": "manual",
        "value": {"choices": [MET if hit else NOT_MET]},
    }


def note_region(position: int, note: str, region_id: str) -> dict:
    return {
        "id": region_id,
        "from_name": note_control(position),
        "to_name": "response",
        "type": "textarea",
        "origin": "manual",
        "value": {"text": [note]},
    }


class _Rejected(Exception):
    def __init__(self, issue: ImportIssue) -> None:
        self.issue = issue


def _tasks_with_lines(data: bytes) -> list[tuple[int, object]]:
    """The top-level array's elements, each with the line it starts on."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _Rejected(ImportIssue(line, "not valid UTF-8; save the file as UTF-8")) from exc
    decoder = json.JSONDecoder()
    position = _skip_space(text, 0)
    if position == len(text):
        raise _Rejected(ImportIssue(0, "the file is empty; a Label Studio export is a JSON list"))
    if text[position] != "[":
        raise _Rejected(
            ImportIssue(1, "not a Label Studio export: the file must be a JSON list of tasks")
        )
    tasks: list[tuple[int, object]] = []
    position = _skip_space(text, position + 1)
    while True:
        if position < len(text) and text[position] == "]" and not tasks:
            position += 1
            break
        try:
            task, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise _Rejected(ImportIssue(exc.lineno, f"not readable as JSON: {exc.msg}")) from exc
        tasks.append((text.count("\n", 0, position) + 1, task))
        position = _skip_space(text, end)
        if position < len(text) and text[position] == ",":
            position = _skip_space(text, position + 1)
            continue
        if position < len(text) and text[position] == "]":
            position += 1
            break
        line = text.count("\n", 0, position) + 1
        raise _Rejected(ImportIssue(line, "not readable as JSON: expected ',' or ']'"))
    if _skip_space(text, position) != len(text):
        line = text.count("\n", 0, position) + 1
        raise _Rejected(ImportIssue(line, "not readable as JSON: text after the list"))
    return tasks


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _rater(value) -> str | None:
    """The rater an annotation's `completed_by` names: Concord writes a pseudonym; Label
    Studio itself writes a user id, or a user object."""
    if isinstance(value, dict):
        value = value.get("email") or value.get("id")
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return f"label-studio-{value}"
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _text(data: dict, name: str) -> str | None:
    value = data.get(name)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _task_rows(number: int, line: int, task) -> Iterator[VoteRow | ImportIssue]:
    where = f"task {number}"
    if not isinstance(task, dict):
        yield ImportIssue(line, "a task must be a JSON object", where)
        return
    data = task.get("data")
    if not isinstance(data, dict):
        yield ImportIssue(line, "the task has no 'data' object", f"{where}/data")
        return
    question_id, system = _text(data, "question_id"), _text(data, "system")
    for name, value in (("question_id", question_id), ("system", system)):
        if value is None:
            yield ImportIssue(line, "missing or empty", f"{where}/data/{name}")
    annotations = task.get("annotations", [])
    if not isinstance(annotations, list):
        yield ImportIssue(line, "must be a list", f"{where}/annotations")
        return
    if question_id is None or system is None:
        return
    for index, annotation in enumerate(annotations):
        path = f"{where}/annotations[{index}]"
        if not isinstance(annotation, dict):
            yield ImportIssue(line, "an annotation must be a JSON object", path)
            continue
        if annotation.get("was_cancelled"):
            continue  # skipped in Label Studio: no votes
        rater = _rater(annotation.get("completed_by"))
        if annotation.get("ground_truth") and rater == REFERENCE_RATER:
            continue
        if rater is None:
            yield ImportIssue(line, "must name the rater", f"{path}/completed_by")
            continue
        yield from _annotation_rows(line, path, rater, question_id, system, annotation)


def _annotation_rows(
    line: int, path: str, rater: str, question_id: str, system: str, annotation: dict
) -> Iterator[VoteRow | ImportIssue]:
    result = annotation.get("result")
    if not isinstance(result, list):
        yield ImportIssue(line, "must be a list of regions", f"{path}/result")
        return
    hits: dict[int, bool] = {}
    notes: dict[int, str] = {}
    for index, region in enumerate(result):
        where = f"{path}/result[{index}]"
        try:
            kind, position, value = _region(region)
        except _Rejected as exc:
            yield ImportIssue(line, exc.issue.message, f"{where}/{exc.issue.field}".rstrip("/"))
            continue
        target = hits if kind == "criterion" else notes
        if position in target:
            yield ImportIssue(line, f"a second {kind} for position {position}", where)
            continue
        target[position] = value
    for position in sorted(set(notes) - set(hits)):
        yield ImportIssue(
            line, f"a note on criterion {position} without a vote on it", f"{path}/result"
        )
    for position in sorted(hits):
        yield VoteRow(
            line=line,
            rater=rater,
            question_id=question_id,
            system=system,
            criterion=position,
            hit=hits[position],
            note=notes.get(position, ""),
        )


def _region(region) -> tuple[str, int, bool | str]:
    if not isinstance(region, dict):
        raise _Rejected(ImportIssue(0, "a region must be a JSON object"))
    name = region.get("from_name")
    match = _CONTROL.fullmatch(name) if isinstance(name, str) else None
    if match is None:
        raise _Rejected(
            ImportIssue(
                0,
                f"unknown control {name!r}: the controls are criterion_N and note_N",
                "from_name",
            )
        )
    kind, position = match.group(1), int(match.group(2))
    value = region.get("value")
    if kind == "criterion":
        choices = value.get("choices") if isinstance(value, dict) else None
        if not isinstance(choices, list) or len(choices) != 1 or choices[0] not in _HITS:
            raise _Rejected(
                ImportIssue(
                    0,
                    f"must be one choice, {MET!r} (met) or {NOT_MET!r} (not met), got {choices!r}",
                    "value/choices",
                )
            )
        return kind, position, _HITS[choices[0]]
    texts = value.get("text") if isinstance(value, dict) else None
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise _Rejected(ImportIssue(0, "must be a list of texts", "value/text"))
    if any("\x00" in t for t in texts):
        raise _Rejected(
            ImportIssue(0, "contains a NUL character, which cannot be stored", "value/text")
        )
    return kind, position, "\n".join(texts)


def read_label_studio_votes(data: bytes) -> Iterator[VoteRow | ImportIssue]:
    """Every vote of a Label Studio export, or the issues that locate why a task or a
    region is unusable (by the line its task starts on, and the task's number)."""
    try:
        tasks = _tasks_with_lines(data)
    except _Rejected as exc:
        yield exc.issue
        return
    for number, (line, task) in enumerate(tasks, start=1):
        yield from _task_rows(number, line, task)
