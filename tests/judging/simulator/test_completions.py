"""Replies of the simulator, over real HTTP with the official openai client."""

import json

import jsonschema
import pydantic
import pytest

from judging.simulator.behaviour import criteria_hint
from judging.simulator.schema import generate, locate_verdicts

from .conftest import CRITERIA_ZH, http, judge_format, judge_messages, judge_schema


def test_structured_reply_validates_against_the_schema(client):
    criteria = [f"criterion {i}" for i in range(1, 8)]
    completion = client.chat.completions.create(
        model="judge-model",
        messages=judge_messages("I hear you.", criteria),
        response_format=judge_format(7),
        seed=1,
    )
    data = json.loads(completion.choices[0].message.content)
    jsonschema.validate(data, judge_schema(7))
    assert len(data["verdicts"]) == 7
    assert all(v["reasoning"] for v in data["verdicts"])
    assert completion.object == "chat.completion"
    assert completion.model == "judge-model (simulated)"
    assert completion.system_fingerprint == "concord-simulator"
    assert completion.choices[0].finish_reason == "stop"
    usage = completion.usage
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_same_request_same_content_other_response_other_verdicts(client):
    def verdicts(response: str, seed: int = 7) -> list[bool]:
        completion = client.chat.completions.create(
            model="m",
            messages=judge_messages(response, [f"c{i}" for i in range(20)]),
            response_format=judge_format(20),
            seed=seed,
        )
        return completion.choices[0].message.content

    first = verdicts("A kind answer.")
    assert verdicts("A kind answer.") == first
    others = {verdicts(f"Answer number {i}.") for i in range(5)}
    assert first not in others and len(others) == 5


def test_hit_rate_is_about_one_half(client):
    hits = []
    for i in range(20):
        completion = client.chat.completions.create(
            model="m",
            messages=judge_messages(f"reply {i}", [f"c{j}" for j in range(20)]),
            response_format=judge_format(20),
        )
        hits += [v["hit"] for v in json.loads(completion.choices[0].message.content)["verdicts"]]
    assert 0.4 < sum(hits) / len(hits) < 0.6


def test_pydantic_parse_with_refs(client):
    class Verdict(pydantic.BaseModel):
        reasoning: str
        hit: bool

    class Judgement(pydantic.BaseModel):
        overall_reasoning: str
        verdicts: list[Verdict] = pydantic.Field(min_length=4, max_length=4)

    completion = client.chat.completions.parse(
        model="m",
        messages=judge_messages("好的，我明白你的感受。", [*CRITERIA_ZH, "没有以用户的身份说话"]),
        response_format=Judgement,
    )
    parsed = completion.choices[0].message.parsed
    assert len(parsed.verdicts) == 4
    assert "4" in parsed.overall_reasoning  # the summary counts the criteria


def test_plain_json_fallback_with_criteria_count(client):
    completion = client.chat.completions.create(
        model="m", messages=judge_messages("没事的。", CRITERIA_ZH, marker=True)
    )
    data = json.loads(completion.choices[0].message.content)
    assert list(data) == ["verdicts"]
    assert len(data["verdicts"]) == 3
    assert all(set(v) == {"reasoning", "hit"} for v in data["verdicts"])
    assert all(isinstance(v["hit"], bool) for v in data["verdicts"])
    assert "第1条标准" in data["verdicts"][0]["reasoning"]  # Chinese prompt, Chinese reasons


def test_plain_json_fallback_with_a_numbered_list_in_json_mode(client):
    completion = client.chat.completions.create(
        model="m",
        messages=judge_messages("Okay.", ["a", "b", "c", "d", "e"]),
        response_format={"type": "json_object"},
    )
    assert len(json.loads(completion.choices[0].message.content)["verdicts"]) == 5


def test_generation_reply_follows_the_language(client):
    zh = client.chat.completions.create(
        model="gen-model",
        messages=[{"role": "user", "content": "最近加班太多了，我觉得自己快撑不住了。"}],
    )
    content = zh.choices[0].message.content
    assert zh.model == "gen-model (simulated)"
    assert sum("\u4e00" <= ch <= "\u9fff" for ch in content) > len(content) / 2
    en = client.chat.completions.create(
        model="gen-model",
        messages=[{"role": "user", "content": "I have been working overtime and I'm exhausted."}],
    )
    assert en.choices[0].message.content.isascii()


def test_max_tokens_cuts_the_reply(client):
    completion = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hello"}], max_tokens=3
    )
    assert completion.choices[0].finish_reason == "length"
    assert completion.usage.completion_tokens <= 3


def test_models_health_and_bad_requests(sim, client):
    assert [m.id for m in client.models.list()] == ["concord-sim"]
    root = sim.base_url.removesuffix("/v1")
    assert http("GET", root + "/healthz")[::2] == (200, {"status": "ok"})
    status, _, body = http("POST", sim.base_url + "/chat/completions", {"model": "m"})
    assert status == 400 and body["error"]["param"] == "messages"
    assert http("GET", root + "/nowhere")[0] == 404


ARRAY_OF_FLAGS = {
    "type": "array",
    "items": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "object", "properties": {"verdicts": {"type": "array"}}}, ("verdicts", 0)),
        (
            {"type": "object", "properties": {"items": {**ARRAY_OF_FLAGS, "minItems": 2}}},
            ("items", 2),
        ),
        ({"type": "object", "properties": {"x": {"type": "string"}}}, None),
    ],
)
def test_locate_verdicts(schema, expected):
    found = locate_verdicts(schema)
    assert (found and (found.key, found.min_items)) == expected


def test_generic_generator_covers_the_subset():
    schema = {
        "type": "object",
        "$defs": {"Level": {"type": "string", "enum": ["low", "mid", "high"]}},
        "properties": {
            "level": {"$ref": "#/$defs/Level"},
            "score": {"type": "integer", "minimum": 1, "maximum": 5},
            "confidence": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "note": {"type": ["string", "null"], "minLength": 3, "maxLength": 20},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "maybe": {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
            "fixed": {"const": 42},
        },
        "required": ["level", "score", "confidence", "note", "tags", "maybe", "fixed"],
        "additionalProperties": False,
    }
    from judging.simulator.behaviour import JudgeFiller

    value = generate(schema, JudgeFiller("k", "en", 0.5, None, 0, None))
    jsonschema.validate(value, schema)


def test_criteria_hint_prefers_the_criteria_list():
    prompt = "Dialogue:\n1. hi\n2. hello\n3. bye\n4. ok\nRubric:\n1. warm\n2. curious\n"
    assert criteria_hint(prompt) == (2, ["warm", "curious"])
    assert criteria_hint(prompt + "CRITERIA_COUNT: 9")[0] == 9
    assert criteria_hint("nothing numbered") == (None, None)
