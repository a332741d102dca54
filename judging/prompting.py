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


def render_dialogue_heartbench(dialogue: list[dict[str, str]]) -> str:
    """The dialogue as HeartBench's released judge script puts it in its prompt: the list of
    turns as Python prints it ([{'role': 'A', 'content': '...'}, ...])."""
    return str(list(dialogue))


def render_criteria_heartbench(criteria: list[PromptCriterion]) -> str:
    """The criteria as HeartBench's released judge script lists them: one line each,
    "[ability][weight] text", the weight as Python prints it (None when it has none)."""
    return "\n".join(f"[{c.ability}][{c.weight}] {c.text}" for c in criteria)


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
        # HeartBench's own placeholders, rendered as its released script renders them, so
        # its prompt can be used as released.
        dialogue_history=render_dialogue_heartbench(dialogue),
        rubric=render_criteria_heartbench(criteria),
        rubric_nums=len(criteria),
    )
    messages = _messages(system_text.format_map(values), user_text.format_map(values))
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


def _messages(system: str, user: str) -> list[dict[str, str]]:
    """A prompt without system text is sent as the user message alone."""
    head = [{"role": "system", "content": system}] if system else []
    return [*head, {"role": "user", "content": user}]


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
