"""The HeartBench question format: one case per line (see the README)."""

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from annotation.importing.fields import (
    optional_string,
    require_list,
    require_object,
    require_string,
    type_name,
)
from annotation.importing.issues import RowInvalid, shown
from annotation.importing.issues import _ as _

WEIGHT_MIN, WEIGHT_MAX = -10, 10
DIFFICULTIES = ("normal", "hard")
# The longest values the database keeps (Case.external_id, Ability.label, Scenario's
# scenes; a test holds them equal to the models' limits).
QUESTION_ID_MAX = 100
DIMENSION_MAX = 100
SCENE_MAX = 200
# Path segments that browsers and HTTP clients resolve as "this folder" and "the parent".
_DOT_SEGMENTS = (".", "..")


@dataclass(frozen=True)
class CriterionRow:
    dimension: str
    weight: int | None
    text: str


@dataclass(frozen=True)
class QuestionRow:
    question_id: str
    dialogue: list[dict[str, str]]
    rubric: list[CriterionRow]
    difficulty: str
    primary_scene: str
    secondary_scene: str

    @property
    def rubric_hash(self) -> str:
        return rubric_hash(self.rubric)


def _sha256_of(value) -> str:
    canonical = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def rubric_hash(rubric: list[CriterionRow]) -> str:
    return _sha256_of([[c.dimension, c.weight, c.text] for c in rubric])


def dialogue_hash(dialogue: list[dict[str, str]]) -> str:
    return _sha256_of([[turn["role"], turn["content"]] for turn in dialogue])


def parse_weight(value: Any, field: str) -> int | None:
    if value is None:
        return None
    # bool is an int subclass in Python; true/false is not a weight.
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise RowInvalid(
                field,
                _(
                    "weight must be an integer from %(min)d to %(max)d or null, "
                    "got %(type)s %(value)s",
                    min=WEIGHT_MIN,
                    max=WEIGHT_MAX,
                    type=type_name(value),
                    value=json.dumps(value, ensure_ascii=False)[:40],
                ),
            )
    if not WEIGHT_MIN <= value <= WEIGHT_MAX:
        raise RowInvalid(
            field,
            _(
                "weight must be an integer from %(min)d to %(max)d or null, got %(value)d",
                min=WEIGHT_MIN,
                max=WEIGHT_MAX,
                value=value,
            ),
        )
    return value


def parse_question_id(row: dict) -> str:
    """The case's id, which names it in web addresses: every character visible, no '/' or
    '\\' (either would split the address) and not a dot segment. Surrounding spaces are
    taken off, as in answers files."""
    question_id = require_string(row, "question_id", strip=True, max_length=QUESTION_ID_MAX)
    if "/" in question_id or "\\" in question_id:
        raise RowInvalid(
            "question_id",
            _("must not contain '/' or '\\': the id is part of the case's web address"),
        )
    if question_id in _DOT_SEGMENTS:
        raise RowInvalid(
            "question_id",
            _("must not be '.' or '..': web addresses read these as folders"),
        )
    hidden = next((c for c in question_id if not c.isprintable()), None)
    if hidden is not None:
        raise RowInvalid(
            "question_id",
            _(
                "contains an invisible or control character (U+%(code)s); an id must be "
                "visible text",
                code=f"{ord(hidden):04X}",
            ),
        )
    return question_id


def parse_dialogue(row: dict) -> list[dict[str, str]]:
    turns = require_list(row, "dialogue")
    dialogue = []
    for index, turn in enumerate(turns):
        prefix = f"dialogue[{index}]."
        turn = require_object(turn, f"dialogue[{index}]")
        dialogue.append(
            {
                "role": require_string(turn, "role", prefix=prefix),
                "content": require_string(turn, "content", prefix=prefix),
            }
        )
    return dialogue


def parse_rubric(row: dict) -> list[CriterionRow]:
    items = require_list(row, "rubric")
    rubric = []
    for index, item in enumerate(items):
        prefix = f"rubric[{index}]."
        item = require_object(item, f"rubric[{index}]")
        if "score" not in item:
            raise RowInvalid(prefix + "score", _("missing (use null for no weight)"))
        rubric.append(
            CriterionRow(
                dimension=require_string(
                    item, "dimension", prefix=prefix, strip=True, max_length=DIMENSION_MAX
                ),
                weight=parse_weight(item["score"], prefix + "score"),
                text=require_string(item, "content", prefix=prefix),
            )
        )
    return rubric


def parse_difficulty(row: dict, file_difficulty: str | None) -> str:
    """The row's difficulty, or the file's when the row has none: HeartBench's official split
    files (question_normal.jsonl, question_hard.jsonl) leave it out, the split being it."""
    if "difficulty" not in row and file_difficulty is not None:
        return file_difficulty
    if "difficulty" not in row:
        raise RowInvalid(
            "difficulty",
            _(
                "missing; for a file of one difficulty (HeartBench's split files), give it for "
                "the whole file: --difficulty normal|hard, or the import page's or the API's "
                "difficulty field"
            ),
        )
    difficulty = require_string(row, "difficulty")
    if difficulty not in DIFFICULTIES:
        raise RowInvalid(
            "difficulty", _("must be 'normal' or 'hard', got %(value)s", value=shown(difficulty))
        )
    if file_difficulty is not None and difficulty != file_difficulty:
        raise RowInvalid(
            "difficulty",
            _(
                "is %(value)s, but the file was given as %(file)s",
                value=shown(difficulty),
                file=shown(file_difficulty),
            ),
        )
    return difficulty


def parse_question(value: Any, file_difficulty: str | None = None) -> QuestionRow:
    """One question row; `file_difficulty` is the difficulty of every row of the file (rows
    may leave it out, and one that names another is refused)."""
    row = require_object(value)
    difficulty = parse_difficulty(row, file_difficulty)
    return QuestionRow(
        question_id=parse_question_id(row),
        dialogue=parse_dialogue(row),
        rubric=parse_rubric(row),
        difficulty=difficulty,
        primary_scene=optional_string(row, "primary_scene", strip=True, max_length=SCENE_MAX),
        secondary_scene=optional_string(row, "secondary_scene", strip=True, max_length=SCENE_MAX),
    )
