"""Validation of a judge's reply. A reply that does not give exactly one boolean verdict
per criterion is a failed attempt: it is never padded, truncated or guessed."""

import json
import re
from dataclasses import dataclass

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


class ReplyInvalid(ValueError):
    pass


@dataclass(frozen=True)
class ParsedVerdict:
    hit: bool
    reasoning: str


@dataclass(frozen=True)
class ParsedReply:
    analysis: str
    verdicts: list[ParsedVerdict]


def parse_reply(content: str | None, *, expected: int) -> ParsedReply:
    if not content or not content.strip():
        raise ReplyInvalid("empty reply")
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:  # plain-JSON fallback endpoints often wrap JSON in a code fence
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplyInvalid(f"reply is not valid JSON ({exc.msg} at column {exc.colno})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("verdicts"), list):
        raise ReplyInvalid("reply has no 'verdicts' list")
    items = data["verdicts"]
    if len(items) != expected:
        raise ReplyInvalid(f"reply has {len(items)} verdicts for {expected} criteria")
    verdicts = []
    for index, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise ReplyInvalid(f"verdict {index} is not an object")
        hit = item.get("hit")
        if not isinstance(hit, bool):
            raise ReplyInvalid(f"verdict {index} has a non-boolean 'hit': {hit!r}")
        reasoning = item.get("reasoning", "")
        verdicts.append(
            ParsedVerdict(hit=hit, reasoning=reasoning if isinstance(reasoning, str) else "")
        )
    analysis = data.get("analysis", "")
    return ParsedReply(analysis=analysis if isinstance(analysis, str) else "", verdicts=verdicts)
