"""Fault injection and latency, forced per request by header or drawn from the rates."""

import json
import time
import urllib.request

import openai
import pytest

from judging.simulator import start_simulator

from .conftest import CRITERIA_ZH, http, judge_format, judge_messages


def ask(client, content: str = "hello", fault: str | None = None, **kwargs):
    headers = {"X-Sim-Fault": fault} if fault else {}
    return client.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": content}],
        extra_headers=headers | kwargs.pop("extra_headers", {}),
        **kwargs,
    )


def test_forced_429_carries_retry_after(sim, client):
    sim.configure(retry_after=3)
    with pytest.raises(openai.RateLimitError) as caught:
        client.chat.completions.with_raw_response.create(
            model="m",
            messages=[{"role": "user", "content": "hi"}],
            extra_headers={"X-Sim-Fault": "429"},
        )
    assert caught.value.status_code == 429
    assert caught.value.response.headers["Retry-After"] == "3"
    assert caught.value.body["code"] == "rate_limit_exceeded"
    assert sim.stats()["faults"]["429"] == 1


def test_forced_500(sim, client):
    with pytest.raises(openai.InternalServerError):
        ask(client, fault="500")
    assert sim.stats()["statuses"] == {"500": 1}


def test_forced_malformed_content_is_not_json(client):
    completion = ask(client, "\n".join(["1. a", "2. b", "CRITERIA_COUNT: 2"]), fault="malformed")
    with pytest.raises(json.JSONDecodeError):
        json.loads(completion.choices[0].message.content)


@pytest.mark.parametrize("structured", [True, False])
def test_forced_wrong_count(client, structured):
    kwargs = {"response_format": judge_format(3)} if structured else {}
    raw = client.chat.completions.with_raw_response.create(
        model="m",
        messages=judge_messages("嗯。", CRITERIA_ZH, marker=not structured),
        extra_headers={"X-Sim-Fault": "wrong_count"},
        **kwargs,
    )
    assert raw.headers["X-Sim-Fault"] == "wrong_count"
    verdicts = json.loads(raw.parse().choices[0].message.content)["verdicts"]
    assert len(verdicts) in (2, 4)


def test_forced_timeout_trips_the_client_timeout():
    # A server of its own: the sleeping request must not linger in the shared one's stats.
    with (
        start_simulator() as sim,
        openai.OpenAI(base_url=sim.base_url, api_key="x", max_retries=0) as client,
    ):
        started = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            ask(client, fault="timeout", timeout=0.3, extra_headers={"X-Sim-Timeout-Sleep-S": "3"})
        assert time.monotonic() - started < 2.5
        assert sim.stats()["faults"]["timeout"] == 1


def test_none_header_overrides_the_rates(sim, client):
    sim.configure(rate_500=1.0)
    assert ask(client, fault="none").choices[0].message.content
    with pytest.raises(openai.InternalServerError):
        ask(client)


def test_bad_fault_header_is_a_400(client):
    with pytest.raises(openai.BadRequestError):
        ask(client, fault="explode")


def test_latency_header(client):
    started = time.monotonic()
    ask(client, extra_headers={"X-Sim-Latency-Ms": "300"})
    assert time.monotonic() - started >= 0.3


def test_429_rate_is_observed(sim, client):
    sim.configure(rate_429=0.5)
    limited = 0
    for i in range(200):
        try:
            ask(client, f"request {i}")
        except openai.RateLimitError:
            limited += 1
    assert 0.4 <= limited / 200 <= 0.6
    stats = sim.stats()
    assert stats["faults"]["429"] == limited and stats["requests"] == 200


def test_retries_get_fresh_draws_and_replay_after_reset(sim):
    sim.configure(rate_429=0.5)
    url = sim.base_url + "/chat/completions"
    body = {"model": "m", "messages": [{"role": "user", "content": "same again"}]}

    def outcomes() -> list[int]:
        return [http("POST", url, body)[0] for _ in range(12)]

    first = outcomes()
    assert set(first) == {200, 429}
    sim.reset()
    assert outcomes() == first


def test_sdk_retry_succeeds_after_429s(sim):
    sim.configure(rate_429=0.5, retry_after=0.01)
    with openai.OpenAI(base_url=sim.base_url, api_key="x", max_retries=8) as client:
        for i in range(5):
            assert ask(client, f"retry me {i}").choices[0].message.content
    stats = sim.stats()
    assert stats["statuses"]["200"] == 5
    assert stats["retries"] == stats["faults"]["429"] > 0


@pytest.mark.parametrize(
    ("fault", "content_type", "body"),
    [
        ("html", "text/html; charset=utf-8", b"<!DOCTYPE html>"),
        ("not_completion", "application/json", b'{"status": "ok"'),
        ("empty", "application/json", b""),
        ("plain_text", "text/plain; charset=utf-8", b"OK"),
    ],
)
def test_forced_replies_of_200_that_are_no_chat_completion(sim, client, fault, content_type, body):
    raw = client.chat.completions.with_raw_response.create(
        model="m",
        messages=[{"role": "user", "content": "hi"}],
        extra_headers={"X-Sim-Fault": fault},
    )
    assert raw.status_code == 200 and raw.headers["X-Sim-Fault"] == fault
    assert raw.headers["Content-Type"] == content_type
    assert raw.http_response.content.startswith(body)
    assert not raw.http_response.content or b"choices" not in raw.http_response.content
    assert sim.stats()["faults"][fault] == 1 and sim.stats()["statuses"] == {"200": 1}


def test_non_completion_rates_are_drawn(sim):
    sim.configure(rate_html=0.5, rate_empty=0.5)
    url = sim.base_url + "/chat/completions"
    kinds = set()
    for i in range(20):
        body = {"model": "m", "messages": [{"role": "user", "content": f"draw {i}"}]}
        request = urllib.request.Request(
            url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            kinds.add(response.headers["X-Sim-Fault"])
    assert kinds == {"html", "empty"}
    assert sim.stats()["faults"]["html"] + sim.stats()["faults"]["empty"] == 20
