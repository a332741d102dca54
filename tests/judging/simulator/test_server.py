"""Admin endpoints, concurrency, the API key and the command line."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import openai
import pytest

from judging.simulator import SettingsError, start_simulator

from .conftest import http

ROOT = Path(__file__).resolve().parents[3]


def chat(client, content="hi"):
    return client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": content}]
    )


def test_config_endpoint_changes_a_running_server(sim, client):
    admin = sim.base_url.removesuffix("/v1") + "/_sim"
    status, _, settings = http("POST", admin + "/config", {"latency-ms": 5, "rate_500": 0.25})
    assert status == 200
    assert settings["latency_ms"] == 5 and settings["rate_500"] == 0.25
    assert http("GET", admin + "/config")[2] == settings
    for bad in ({"nope": 1}, {"rate_429": 2}, {"rate_429": 0.6, "rate_500": 0.6}, [1]):
        assert http("POST", admin + "/config", bad)[0] == 400
    assert sim.settings()["rate_500"] == 0.25
    with pytest.raises(SettingsError):
        sim.configure(latency_ms=-1)


def test_stats_and_reset_endpoints(sim, client):
    admin = sim.base_url.removesuffix("/v1") + "/_sim"
    chat(client)
    chat(client)
    with pytest.raises(openai.InternalServerError):
        client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "x"}],
            extra_headers={"X-Sim-Fault": "500"},
        )
    stats = http("GET", admin + "/stats")[2]
    assert stats["requests"] == 3 and stats["retries"] == 1
    assert stats["faults"]["500"] == 1 and stats["statuses"] == {"200": 2, "500": 1}
    assert stats["replies"] == {"generation": 2}
    assert stats["in_flight"] == 0 and stats["max_in_flight"] == 1
    status, _, after = http("POST", admin + "/reset")
    assert status == 200 and after["requests"] == 0 and after["faults"]["500"] == 0
    assert sim.stats() == after


def test_the_client_keeps_connections_alive(sim, client):
    for i in range(10):
        chat(client, f"sequential {i}")
    assert sim.stats()["connections"] == 1


def test_concurrent_requests_overlap(sim, client):
    sim.configure(latency_ms=200)
    with ThreadPoolExecutor(16) as pool:
        replies = list(pool.map(lambda i: chat(client, f"parallel {i}"), range(16)))
    assert len(replies) == 16
    stats = sim.stats()
    assert stats["requests"] == 16 and stats["max_in_flight"] >= 8


def test_an_endpoint_that_slows_down_answers_its_first_requests_at_once():
    with start_simulator(latency_ms=120_000, latency_after=2) as own:
        # Answered well within the generous timeout: without `latency_after` they would wait
        # two minutes and time out.
        with openai.OpenAI(base_url=own.base_url, api_key="x", max_retries=0, timeout=60) as c:
            chat(c, "first")
            chat(c, "second")
            with pytest.raises(openai.APITimeoutError):
                chat(c.with_options(timeout=1), "third")
        assert own.stats()["requests"] == 3
        with pytest.raises(SettingsError, match="latency_after must not be negative"):
            own.configure(latency_after=-1)


def test_api_key_is_enforced():
    with start_simulator(api_key="s3cret") as sim:
        with openai.OpenAI(base_url=sim.base_url, api_key="wrong", max_retries=0) as client:
            with pytest.raises(openai.AuthenticationError) as caught:
                chat(client)
            assert caught.value.body["code"] == "invalid_api_key"
        with openai.OpenAI(base_url=sim.base_url, api_key="s3cret", max_retries=0) as client:
            assert chat(client).choices[0].message.content
        assert http("GET", sim.base_url.removesuffix("/v1") + "/healthz")[0] == 200
        assert sim.settings()["api_key"] is True  # never the key itself
        assert "s3cret" not in repr(sim.server.settings)


def test_the_package_does_not_import_django():
    code = (
        "import sys, judging.simulator.__main__\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr


def test_command_line_serves_until_terminated():
    env = {**os.environ, "CONCORD_SIM_LATENCY_MS": "1"}
    command = [sys.executable, "-m", "judging.simulator", "--port", "0", "--quiet"]
    proc = subprocess.Popen(
        [*command, "--rate-500", "0.1"], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        base_url = proc.stdout.readline().strip().rsplit(" ", 1)[-1]
        status, _, settings = http("GET", base_url.removesuffix("/v1") + "/_sim/config")
        assert status == 200 and settings["latency_ms"] == 1 and settings["rate_500"] == 0.1
    finally:
        proc.terminate()
        assert proc.wait(timeout=5) == 0
