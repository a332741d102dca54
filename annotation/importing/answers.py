"""Answers files: question rows plus `response`, or just `{question_id, response}`."""

from dataclasses import dataclass
from typing import Any

from annotation.importing.fields import require_object, require_string
from annotation.importing.questions import QUESTION_ID_MAX


@dataclass(frozen=True)
class AnswerRow:
    question_id: str
    response: str


def parse_answer(value: Any) -> AnswerRow:
    row = require_object(value)
    return AnswerRow(
        question_id=require_string(row, "question_id", strip=True, max_length=QUESTION_ID_MAX),
        response=require_string(row, "response", allow_empty=True),
    )
