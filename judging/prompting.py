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
class FewShotExample:
    """A worked example shown to the judge: a response the experts judged on one criterion,
    their verdict (hit) and their reasons."""

    ability: str
    criterion: str
    dialogue: list[dict[str, str]]
    response: str
    hit: bool
    explanation: str


def examples_of(stored: list[dict]) -> list[FewShotExample]:
    """A judge version's stored examples (dicts that may carry their origin too)."""
    return [
        FewShotExample(
            ability=e["ability"],
            criterion=e["criterion"],
            dialogue=e["dialogue"],
            response=e["response"],
            hit=bool(e["hit"]),
            explanation=e.get("explanation", ""),
        )
        for e in stored or ()
    ]


# The examples block's format; a judge version records it with its examples, so a change of
# format is a change of judge.
EXAMPLES_BLOCK_VERSION = 1
EXAMPLES_OPEN = '<examples version="{version}">'
EXAMPLES_CLOSE = "</examples>"
_EXAMPLE_WORDS = {
    "en": {
        "intro": (
            "Worked examples: responses the experts judged, with their verdict on one "
            "criterion and their reasons. Judge the new response below in the same way; "
            "the examples are not part of it."
        ),
        "dialogue": "Dialogue:",
        "response": "Response:",
        "criterion": "Criterion",
        "verdict": "Experts' verdict:",
        "met": "met",
        "not_met": "not met",
        "explanation": "Explanation:",
    },
    "zh": {
        "intro": (
            "示例：专家评审过的回复，附专家对其中一条评分标准的结论及理由。"
            "请以同样的方式评审下面的新回复；示例不属于新回复。"
        ),
        "dialogue": "对话：",
        "response": "回复：",
        "criterion": "评分标准",
        "verdict": "专家结论：",
        "met": "符合",
        "not_met": "不符合",
        "explanation": "理由：",
    },
}


def examples_language(language: str) -> str:
    """The examples block's language for a prompt's language code (zh, zh-hans, en...)."""
    return "zh" if language.lower().startswith("zh") else "en"


def render_examples(examples: list[FewShotExample], language: str) -> str:
    """The examples as one delimited block in the judge's language; empty without any."""
    if not examples:
        return ""
    words = _EXAMPLE_WORDS[examples_language(language)]
    parts = [EXAMPLES_OPEN.format(version=EXAMPLES_BLOCK_VERSION), words["intro"]]
    for number, example in enumerate(examples, start=1):
        verdict = words["met"] if example.hit else words["not_met"]
        parts.append(
            "\n".join(
                [
                    f'<example n="{number}">',
                    words["dialogue"],
                    render_dialogue(example.dialogue),
                    words["response"],
                    example.response,
                    f"{words['criterion']} [{example.ability}]: {example.criterion}",
                    f"{words['verdict']} {verdict}",
                    f"{words['explanation']} {example.explanation}".rstrip(),
                    "</example>",
                ]
            )
        )
    parts.append(EXAMPLES_CLOSE)
    return "\n\n".join(parts)


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
    examples: list[FewShotExample] = (),
    language: str = "en",
) -> JudgeRequest:
    """The judge's messages. Examples go where the template says `{examples}`, else before
    the user message's text, as one delimited block."""
    block = render_examples(list(examples), language)
    # Prepended after formatting: the examples' own text may hold braces.
    ahead = block and "{examples}" not in system_text + user_text
    values = _Blank(
        examples=block,
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
    user = user_text.format_map(values)
    messages = _messages(system_text.format_map(values), f"{block}\n\n{user}" if ahead else user)
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
