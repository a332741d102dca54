"""Judge prompts and the reply schema, as plain data (no Django)."""

import hashlib
import json
from dataclasses import dataclass

SCHEMA_NAME = "rubric_verdicts"


@dataclass(frozen=True)
class PromptCriterion:
    position: int
    ability: str
    weight: int | None
    text: str
    catastrophic: bool


@dataclass(frozen=True)
class JudgeRequest:
    messages: list[dict[str, str]]
    response_format: dict | None
    criteria_count: int


def render_dialogue(dialogue: list[dict[str, str]]) -> str:
    return "\n".join(f"{turn['role']}: {turn['content']}" for turn in dialogue)


def render_criteria(criteria: list[PromptCriterion]) -> str:
    lines = []
    for c in criteria:
        if c.catastrophic:
            kind = "catastrophic failure: hit = it happened"
        elif c.weight is not None and c.weight < 0:
            kind = f"penalty {c.weight}: hit = the bad behaviour happened"
        else:
            kind = f"weight {c.weight}: hit = the behaviour is present"
        lines.append(f"{c.position}. [{c.ability} | {kind}] {c.text}")
    return "\n".join(lines)


def verdict_schema(count: int) -> dict:
    """One verdict per criterion, in order; reasoning comes before each boolean."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["analysis", "verdicts"],
        "properties": {
            "analysis": {"type": "string"},
            "verdicts": {
                "type": "array",
                "minItems": count,
                "maxItems": count,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["criterion", "reasoning", "hit"],
                    "properties": {
                        "criterion": {"type": "integer"},
                        "reasoning": {"type": "string"},
                        "hit": {"type": "boolean"},
                    },
                },
            },
        },
    }


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def build_judge_request(
    *,
    system_text: str,
    user_text: str,
    dialogue: list[dict[str, str]],
    response: str,
    criteria: list[PromptCriterion],
    structured: bool,
) -> JudgeRequest:
    values = _Blank(
        dialogue=render_dialogue(dialogue),
        response=response,
        criteria=render_criteria(criteria),
        criteria_count=len(criteria),
        schema=json.dumps(verdict_schema(len(criteria)), ensure_ascii=False),
    )
    messages = [
        {"role": "system", "content": system_text.format_map(values)},
        {"role": "user", "content": user_text.format_map(values)},
    ]
    response_format = (
        {
            "type": "json_schema",
            "json_schema": {
                "name": SCHEMA_NAME,
                "strict": True,
                "schema": verdict_schema(len(criteria)),
            },
        }
        if structured
        else None
    )
    return JudgeRequest(messages, response_format, len(criteria))


def request_hash(*, model: str, request: JudgeRequest, settings: dict) -> str:
    """Identity of a paid call: same prompt, model and sampling settings give the same
    answer from the cache."""
    canonical = json.dumps(
        {
            "model": model,
            "messages": request.messages,
            "response_format": request.response_format,
            "settings": settings,
        },
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def build_generation_request(
    *, system_text: str, user_text: str, dialogue: list[dict[str, str]]
) -> JudgeRequest:
    """A candidate model's turn: the dialogue so far, to be answered in its own voice."""
    values = _Blank(dialogue=render_dialogue(dialogue))
    messages = [
        {"role": "system", "content": system_text.format_map(values)},
        {"role": "user", "content": user_text.format_map(values)},
    ]
    return JudgeRequest(messages, None, 0)
