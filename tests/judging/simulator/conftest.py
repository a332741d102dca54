import json
import urllib.error
import urllib.request

import openai
import pytest

from judging.simulator import Settings, start_simulator


@pytest.fixture(scope="session")
def sim_server():
    handle = start_simulator()
    yield handle
    handle.stop()


@pytest.fixture
def sim(sim_server):
    """The shared simulator with default settings and zeroed statistics."""
    defaults = Settings().public()
    defaults["api_key"] = None
    sim_server.configure(**defaults)
    sim_server.reset()
    return sim_server


@pytest.fixture
def client(sim):
    with openai.OpenAI(base_url=sim.base_url, api_key="x", max_retries=0, timeout=10) as c:
        yield c


def http(method: str, url: str, body: object = None, headers: dict | None = None):
    """(status, headers, parsed JSON body) of a plain HTTP request."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, json.loads(exc.read())


def judge_schema(n: int) -> dict:
    return {
        "type": "object",
        "properties": {
            "overall_reasoning": {"type": "string"},
            "verdicts": {
                "type": "array",
                "minItems": n,
                "maxItems": n,
                "items": {
                    "type": "object",
                    "properties": {
                        "reasoning": {"type": "string"},
                        "hit": {"type": "boolean"},
                    },
                    "required": ["reasoning", "hit"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["overall_reasoning", "verdicts"],
        "additionalProperties": False,
    }


def judge_format(n: int) -> dict:
    return {
        "type": "json_schema",
        "json_schema": {"name": "verdicts", "strict": True, "schema": judge_schema(n)},
    }


def judge_messages(response: str, criteria: list[str], marker: bool = False) -> list[dict]:
    lines = [f"{i}. {c}" for i, c in enumerate(criteria, start=1)]
    if marker:
        lines.append(f"CRITERIA_COUNT: {len(criteria)}")
    return [
        {"role": "system", "content": "You are a strict judge. Reason first, then verdicts."},
        {"role": "user", "content": f"Response:\n{response}\n\nCriteria:\n" + "\n".join(lines)},
    ]


CRITERIA_ZH = [
    "指出用户的疲惫和压力感",
    "用开放式问题询问加班的具体情况",
    "一次性给出 8 条或更多建议",
]
