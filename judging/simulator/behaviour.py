"""What the simulator answers to a chat-completions request (faults aside).

A request is a judge request when it asks for a `json_schema` response format, when its
prompt carries a `CRITERIA_COUNT: N` line, or when it asks for JSON (`json_object`, or the
prompt mentions "verdicts") and contains a numbered criteria list. Anything else is a
generation request and gets a short canned empathetic reply in the language of the last
user message. Every draw is a hash of the request key (model, messages, seed), so the same
request always gets the same content.
"""

import json
import re
from dataclasses import dataclass, field

from . import text
from .learning import criterion_key, learned_verdicts, strip_examples
from .schema import Path, VerdictArray, generate, locate_verdicts


class RequestError(ValueError):
    """The request body is not a valid chat-completions request (HTTP 400)."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: list
    seed: object
    response_format: dict | None
    max_tokens: int | None
    n: int
    key: str
    prompt: str
    last_user: str
    # Criterion -> the verdict worked examples in the prompt teach (learning.py).
    learned: dict = field(default_factory=dict)


def message_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def parse_request(body: object) -> ChatRequest:
    if not isinstance(body, dict):
        raise RequestError("The request body must be a JSON object.")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise RequestError("you must provide a model parameter", "model")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty array", "messages")
    if not all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages):
        raise RequestError("every message must be an object with a 'role'", "messages")
    if body.get("stream"):
        raise RequestError("streaming is not supported by the Concord simulator", "stream")
    response_format = body.get("response_format")
    if response_format is not None:
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if kind not in ("text", "json_object", "json_schema"):
            raise RequestError("unsupported response_format type", "response_format")
        if kind == "json_schema" and not isinstance(response_format.get("json_schema"), dict):
            raise RequestError("response_format.json_schema must be an object", "response_format")
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 1):
        raise RequestError("max_tokens must be a positive integer", "max_tokens")
    n = body.get("n") or 1
    if not isinstance(n, int) or not 1 <= n <= 8:
        raise RequestError("n must be an integer from 1 to 8", "n")
    seed = body.get("seed")
    whole = "\n".join(message_text(m) for m in messages)
    learned = learned_verdicts(whole)
    if learned or "<examples version=" in whole:
        # Drawn as if the examples were not there: they change a verdict only by learning.
        messages = [
            {**m, "content": strip_examples(m["content"])}
            if isinstance(m.get("content"), str)
            else m
            for m in messages
        ]
    canonical = json.dumps(
        {"model": model, "messages": messages, "seed": seed}, sort_keys=True, ensure_ascii=False
    )
    texts = [message_text(m) for m in messages]
    users = [t for m, t in zip(messages, texts, strict=True) if m["role"] == "user"]
    return ChatRequest(
        model=model,
        messages=messages,
        seed=seed,
        response_format=response_format,
        max_tokens=max_tokens,
        n=n,
        key=text.digest(canonical),
        prompt="\n".join(texts),
        last_user=users[-1] if users else texts[-1],
        learned=learned,
    )


MARKER = re.compile(r"CRITERIA[_ ]COUNT\s*[:=：]\s*(\d{1,4})", re.IGNORECASE)
ITEM = re.compile(r"^\s*(?:[-*]\s*)?(?:\[(\d{1,3})\]|(\d{1,3})\s*[.)、:：．])\s*(\S.*)$")
HEADER = re.compile(r"criteri|rubric|标准|细则|评分项|检查项", re.IGNORECASE)
# HeartBench's released judge prompt states the count as "rubric条数：" and asks for
# {'reason': ..., 'detail': [1, 0, ...]}; the simulator answers it in that form.
HEARTBENCH_COUNT = re.compile(r"rubric条数\s*[:：]\s*(\d{1,4})")


def criteria_hint(prompt: str) -> tuple[int | None, list[str] | None]:
    """(count, criterion texts) read from the prompt: the last `CRITERIA_COUNT: N` line wins;
    otherwise the numbered list (1., 2., ... or [1], [2], ...) right after a line that
    mentions criteria/rubric/标准, else the longest numbered list."""
    blocks: list[tuple[bool, list[str]]] = []
    header_seen = False
    expected = None
    for line in prompt.splitlines():
        match = ITEM.match(line)
        number = int(match.group(1) or match.group(2)) if match else None
        if number == 1:
            blocks.append((header_seen, [match.group(3).strip()]))
            header_seen, expected = False, 2
        elif number is not None and number == expected:
            blocks[-1][1].append(match.group(3).strip())
            expected += 1
        elif number is None and HEADER.search(line):
            header_seen = True
    headed = [items for flagged, items in blocks if flagged]
    chosen = headed[-1] if headed else max((items for _, items in blocks), key=len, default=None)
    markers = MARKER.findall(prompt)
    if markers:
        count = int(markers[-1])
        return count, chosen if chosen and len(chosen) == count else None
    return (len(chosen), chosen) if chosen else (None, None)


@dataclass(frozen=True)
class Reply:
    content: str
    kind: str  # "judge_schema", "judge_plain", "json" or "generation"
    verdict_key: str | None = None  # where the verdicts are, when a wrong count is possible


def _reasonish(name: object) -> bool:
    words = ("reason", "explan", "rational", "justif", "analy", "comment", "summary", "thought")
    return isinstance(name, str) and any(w in name.lower() for w in words)


class JudgeFiller:
    """Fills a judge schema: verdict booleans are the criterion draws, their reasoning
    matches, top-level reasoning fields summarise; everything else is a plain hash draw."""

    def __init__(
        self, key, lang, hit_rate, verdicts: VerdictArray | None, n, texts, delta=0, learn=None
    ):
        self.key, self.lang, self.hit_rate = key, lang, hit_rate
        self.verdicts, self.n, self.texts, self.delta = verdicts, n, texts, delta
        # (learned verdicts by criterion, probability of following them) or None.
        self.learn = learn

    def hit(self, index: int) -> bool:
        drawn = text.unit(self.key, "hit", index) < self.hit_rate
        if self.learn is None or not self.texts or index >= len(self.texts):
            return drawn
        learned, rate = self.learn
        taught = learned.get(criterion_key(self.texts[index]))
        if taught is None or taught == drawn:
            return drawn
        return taught if text.unit(self.key, "learn", index) < rate else drawn

    def _verdict_index(self, path: Path) -> int | None:
        v = self.verdicts
        if v and len(path) == 3 and path[0] == v.key and isinstance(path[1], int):
            return path[1]
        return None

    def boolean(self, path: Path) -> bool:
        index = self._verdict_index(path)
        if index is not None and path[2] == self.verdicts.hit_key:
            return self.hit(index)
        return text.unit(self.key, "bool", path) < 0.5

    def string(self, path: Path) -> str:
        index = self._verdict_index(path)
        name = path[-1] if path else None
        if index is not None and _reasonish(name):
            criterion = self.texts[index] if self.texts and index < len(self.texts) else None
            return text.verdict_reasoning(self.lang, index, self.hit(index), criterion, self.key)
        if len(path) == 1 and _reasonish(name) and self.verdicts:
            return text.summary(self.lang, sum(map(self.hit, range(self.n))), self.n)
        return text.generic_sentence(self.lang, self.key, path)

    def integer(self, path: Path, lo: int, hi: int) -> int:
        index = self._verdict_index(path)
        if index is not None and path[2] == "criterion":
            return index + 1  # a verdict names its criterion, as the prompt numbers them
        return lo + min(int(text.unit(self.key, "int", path) * (hi - lo + 1)), max(hi - lo, 0))

    def number(self, path: Path, lo: float, hi: float) -> float:
        return min(max(round(lo + text.unit(self.key, "num", path) * (hi - lo), 2), lo), hi)

    def choice(self, path: Path, options: list) -> object:
        return text.pick(options, self.key, "enum", path)

    def array_length(self, path: Path, lo: int, hi: int | None) -> int:
        if self.verdicts and path == (self.verdicts.key,):
            return max(self.n + self.delta, 0)
        return max(lo, 1) if hi is None else min(max(lo, 1), hi)


def build_reply(
    req: ChatRequest, hit_rate: float, choice: int = 0, delta: int = 0, learns: float = 0.0
) -> Reply:
    """The reply content; `delta` (+1/-1) adds or drops a verdict (the wrong-count fault);
    `learns` is the probability of following the prompt's worked examples (learning.py)."""
    key = req.key if choice == 0 else text.digest(req.key, "choice", choice)
    learn = (req.learned, learns) if learns > 0 and req.learned else None
    rf = req.response_format or {}
    count, texts = criteria_hint(req.prompt)
    if rf.get("type") == "json_schema":
        schema = rf["json_schema"].get("schema")
        if not isinstance(schema, dict):
            schema = {"type": "object", "properties": {"verdicts": PLAIN_VERDICTS}}
        verdicts = locate_verdicts(schema)
        n = 0
        if verdicts:
            n = count if count is not None else max(verdicts.min_items, 1)
            n = max(verdicts.min_items, n)
            n = n if verdicts.max_items is None else min(n, verdicts.max_items)
        lang = "zh" if text.is_cjk(req.prompt) else "en"
        filler = JudgeFiller(
            key, lang, hit_rate, verdicts, n, texts, delta if verdicts else 0, learn
        )
        data = generate(schema, filler)
        return Reply(_dumps(data), "judge_schema", verdicts.key if verdicts else None)
    heartbench = HEARTBENCH_COUNT.search(req.prompt)
    if heartbench and "'detail'" in req.prompt:
        n = max(int(heartbench.group(1)) + delta, 0)
        filler = JudgeFiller(key, "zh", hit_rate, None, n, None)
        detail = [int(filler.hit(index)) for index in range(n)]
        # Python's own notation, single quotes, as the released prompt shows it.
        return Reply(
            str({"reason": text.summary("zh", sum(detail), n), "detail": detail}),
            "judge_heartbench",
        )
    wants_json = rf.get("type") == "json_object" or "verdicts" in req.prompt.lower()
    if count is not None and (MARKER.search(req.prompt) or wants_json):
        lang = "zh" if text.is_cjk(req.prompt) else "en"
        verdicts = VerdictArray("verdicts", count, count, "hit")
        filler = JudgeFiller(key, lang, hit_rate, verdicts, count, texts, delta, learn)
        data = generate({"type": "object", "properties": {"verdicts": PLAIN_VERDICTS}}, filler)
        return Reply(_dumps(data), "judge_plain", "verdicts")
    lang = "zh" if text.is_cjk(req.last_user) else "en"
    reply = text.canned_reply(lang, key)
    if rf.get("type") == "json_object":
        return Reply(_dumps({"reply": reply}), "json")
    return Reply(reply, "generation")


PLAIN_VERDICTS = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"reasoning": {"type": "string"}, "hit": {"type": "boolean"}},
        "required": ["reasoning", "hit"],
    },
}


def _dumps(data: object) -> str:
    return json.dumps(data, ensure_ascii=False)
