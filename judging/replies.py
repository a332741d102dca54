"""Validation of a judge's reply. A reply that does not give exactly one boolean verdict
per criterion is a failed attempt: it is never padded, truncated or guessed.

Two forms are read, and the parsed reply says which (`form`):
- Concord's schema (CONCORD): {"analysis": ..., "verdicts": [{"criterion": n, "reasoning":
  ..., "hit": true|false}, ...]}. Where the verdicts number their criteria, the numbers are
  checked against the rubric's order: each criterion named once, verdicts placed by their
  number (a reply that lists them in another order is realigned, not misread); a reply
  that names a criterion twice, or one the rubric does not have, is invalid.
- HeartBench's released output (HEARTBENCH): {'reason': ..., 'detail': [1, 0, ...]}, a
  Python-style object with single quotes as its prompt asks for, or JSON; each element
  0 or 1, one per criterion in rubric order.
"""

import ast
import json
import re
from dataclasses import dataclass

_FENCE = re.compile(r"^\s*```(?:json|python)?\s*(.*?)\s*```\s*$", re.S)
# HeartBench's prompt shows its keys annotated ('detail'（array of Integer）:[...]); models
# echo that, which no parser of literals reads: the list and the reason are found by key.
_DETAIL = re.compile(r"""['"]detail['"]\s*(?:[（(][^）)]*[）)])?\s*[:：]\s*\[([^\[\]]*)\]""")
_REASON = re.compile(
    r"""['"]reason['"]\s*(?:[（(][^）)]*[）)])?\s*[:：]\s*['"]?(.*?)['"]?\s*,?\s*['"]detail['"]""",
    re.S,
)

CONCORD, HEARTBENCH = "concord", "heartbench"


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
    form: str = CONCORD  # which of the two forms the reply used


def _load(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            found = _DETAIL.search(text)
            if found is None:
                raise ReplyInvalid(
                    f"reply is not valid JSON ({exc.msg} at column {exc.colno})"
                ) from exc
            reason = _REASON.search(text)
            try:
                detail = [int(x) for x in found.group(1).replace(" ", "").split(",") if x]
            except ValueError:
                raise ReplyInvalid(
                    "reply's 'detail' list holds something other than 0 or 1"
                ) from None
            return {"reason": reason.group(1).strip() if reason else "", "detail": detail}


def parse_reply(
    content: str | None, *, expected: int, numbers: list[int] | None = None
) -> ParsedReply:
    """The verdicts of a reply for `expected` criteria; `numbers`, the criteria's numbers in
    rubric order (1..expected when not given), check the numbers a reply gives."""
    if not content or not content.strip():
        raise ReplyInvalid("empty reply")
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:  # plain-JSON fallback endpoints often wrap JSON in a code fence
        text = fenced.group(1)
    data = _load(text)
    if isinstance(data, dict) and "verdicts" not in data and isinstance(data.get("detail"), list):
        return _heartbench(data, expected)
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
    order = _numbered_order(items, numbers or list(range(1, expected + 1)))
    analysis = data.get("analysis", "")
    return ParsedReply(
        analysis=analysis if isinstance(analysis, str) else "",
        verdicts=[verdicts[i] for i in order],
    )


def _numbered_order(items: list[dict], numbers: list[int]) -> list[int]:
    """The index of each criterion's verdict, in rubric order. Verdicts without numbers are
    read in order; with numbers, each criterion must be named exactly once."""
    given = [item.get("criterion") for item in items]
    if all(number is None for number in given):
        return list(range(len(items)))
    ordinal = list(range(1, len(numbers) + 1))
    for index, number in enumerate(given, start=1):
        if isinstance(number, bool) or not isinstance(number, int):
            raise ReplyInvalid(f"verdict {index} has no criterion number: {number!r}")
    # The numbers the prompt showed (the criteria's positions), or plainly 1..n.
    for scheme in (numbers, ordinal):
        if sorted(given) == sorted(scheme) and len(set(given)) == len(given):
            where = {number: index for index, number in enumerate(given)}
            return [where[number] for number in scheme]
    index, number = next(
        (i, n) for i, n in enumerate(given, start=1) if n not in numbers or given.count(n) > 1
    )
    raise ReplyInvalid(
        f"verdict {index} names criterion {number}, not in the rubric or named twice"
    )


def _heartbench(data: dict, expected: int) -> ParsedReply:
    detail = data["detail"]
    if len(detail) != expected:
        raise ReplyInvalid(f"reply's 'detail' has {len(detail)} verdicts for {expected} criteria")
    verdicts = []
    for index, value in enumerate(detail, start=1):
        if value not in (0, 1) or isinstance(value, float):
            raise ReplyInvalid(f"'detail' element {index} is not 0 or 1: {value!r}")
        verdicts.append(ParsedVerdict(hit=bool(value), reasoning=""))
    reason = data.get("reason", "")
    return ParsedReply(
        analysis=reason if isinstance(reason, str) else "", verdicts=verdicts, form=HEARTBENCH
    )
