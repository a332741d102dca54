"""Whether an endpoint takes structured output is asked once per judge version, before its
first run's calls; the answer is stored and every later run of the version reuses it. The
endpoint is the simulator over HTTP, with and without the provider quirk that refuses
`json_schema`."""

import json

import pytest

from judging.llm_client import CallFailed
from judging.models import JudgeAttempt, JudgeTask, OutputProbe, Verdict
from judging.selectors.output_mode import REFUSED, UNCHECKED, run_output_notice
from judging.services.lane_pool import pool_run
from judging.services.output_probe import provider_message
from judging.services.run_control import judge_run_interrupt, judge_run_resume
from judging.services.runs import judge_run_start
from tests.conftest import judge_config

pytestmark = pytest.mark.django_db(transaction=True)


def _received(stats: dict) -> int:
    """Chat completions the simulator received: those it answered, and those it refused
    as a provider would (HTTP 400, counted apart)."""
    return stats["requests"] + stats["statuses"].get("400", 0)


def _judged(run) -> None:
    pool_run(run_id=run.pk, lanes=2)
    run.refresh_from_db()
    assert set(run.tasks.values_list("status", flat=True)) == {JudgeTask.Status.DONE}
    # Every reply parsed: one verdict per criterion, no failed attempt.
    assert not JudgeAttempt.objects.filter(task__run=run).exclude(outcome="ok").exists()
    assert Verdict.objects.filter(task__run=run).count() == 4 * 4


def test_an_endpoint_that_refuses_json_schema_is_asked_for_plain_json_after_one_probe(
    judged_benchmark, sim_config, simulator
):
    simulator.configure(quirks="no_json_schema")
    benchmark, systems = judged_benchmark
    config = sim_config()
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=config)

    probe = OutputProbe.objects.get()
    assert probe.judge_version == config.current_version
    assert (probe.finding, probe.mode, probe.http_status) == ("refused", "plain_json", 400)
    assert probe.provider_message == (
        "Invalid parameter: 'response_format' of type 'json_schema' is not supported with "
        "this model."
    )
    assert (probe.base_url, probe.model) == (simulator.base_url, "concord-sim")
    assert run.settings_snapshot["output_mode"] == "plain_json"
    notice = run_output_notice(run=run)
    assert notice.kind == REFUSED and notice.probe == probe
    assert notice.text().startswith(
        "this endpoint refused structured output; Concord asks for plain JSON and checks it "
        "against the schema"
    )
    _judged(run)
    # The probe, the same request without structured output (answered: so the 400 was about
    # structured output) and the four calls, which asked for plain JSON: none was refused.
    stats = simulator.stats()
    assert (_received(stats), stats["statuses"]["400"]) == (6, 1)

    again = judge_run_start(
        benchmark=benchmark, systems=systems[:1], config=config, fresh_calls=True
    )
    _judged(again)
    assert OutputProbe.objects.count() == 1
    assert again.settings_snapshot["output_mode"] == "plain_json"
    assert _received(simulator.stats()) == 10


def test_an_endpoint_that_accepts_json_schema_is_probed_once_and_asked_for_it(
    judged_benchmark, sim_config, simulator
):
    benchmark, systems = judged_benchmark
    config = sim_config()
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=config)
    probe = OutputProbe.objects.get()
    assert (probe.finding, probe.mode, probe.provider_message) == ("accepted", "json_schema", "")
    assert run.settings_snapshot["output_mode"] == "json_schema"
    assert run_output_notice(run=run) is None
    _judged(run)
    assert _received(simulator.stats()) == 5
    again = judge_run_start(
        benchmark=benchmark, systems=systems[:1], config=config, fresh_calls=True
    )
    _judged(again)
    assert OutputProbe.objects.count() == 1 and simulator.stats()["requests"] == 9


def test_a_version_that_asks_for_plain_json_is_not_probed(judged_benchmark, sim_config, simulator):
    benchmark, systems = judged_benchmark
    config = sim_config(structured_output=False)
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=config)
    _judged(run)
    assert not OutputProbe.objects.exists() and _received(simulator.stats()) == 4
    assert run_output_notice(run=run) is None


def test_a_probe_that_cannot_connect_stores_nothing_and_the_next_start_asks_again(
    judged_benchmark, simulator
):
    benchmark, systems = judged_benchmark
    simulator.stop()  # nothing listens on its port any more
    config = judge_config(
        name="gone",
        base_url=simulator.base_url,
        model="concord-sim",
        timeout_seconds=5,
        max_attempts=1,
        prompt=_judge_prompt(),
    )
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=config)
    assert not OutputProbe.objects.exists()
    assert run.settings_snapshot["output_mode"] == "json_schema"
    notice = run_output_notice(run=run)
    assert notice.kind == UNCHECKED
    assert notice.text() == (
        "could not check whether this endpoint accepts structured output (the endpoint "
        "could not be reached); the run asks for it as configured and the next run checks again"
    )


def test_resuming_a_run_whose_probe_got_no_answer_probes_then_asks_as_found(
    judged_benchmark, sim_config, simulator
):
    benchmark, systems = judged_benchmark
    simulator.configure(rate_500=1.0)
    config = sim_config()
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=config)
    assert not OutputProbe.objects.exists()
    assert run.settings_snapshot["output_probe_unchecked"].startswith("HTTP 500")
    judge_run_interrupt(run_id=run.pk, release=True)

    simulator.configure(rate_500=0.0, quirks="no_json_schema")
    judge_run_resume(run=run)
    probe = OutputProbe.objects.get()
    assert probe.finding == "refused"
    assert run.settings_snapshot["output_mode"] == "plain_json"
    assert "output_probe_unchecked" not in run.settings_snapshot
    assert run_output_notice(run=run).kind == REFUSED
    _judged(run)


def _judge_prompt():
    from judging.models import PromptTemplate

    return PromptTemplate.objects.get(name="judge-zh", version=1)


def test_the_providers_words_are_kept_without_the_key_and_trimmed(monkeypatch):
    monkeypatch.setenv("CONCORD_JUDGE_KEY_TEST", "live-abcdef123456")
    said = "json_schema is not supported for live-abcdef123456 (Bearer abc.def) sk-proj-XYZ12345"
    failure = CallFailed(
        "http_error",
        "HTTP 400 from the endpoint",
        retryable=False,
        http_status=400,
        raw=json.dumps({"error": {"message": said + " padding" * 60}}),
    )
    text = provider_message(failure, key_env="CONCORD_JUDGE_KEY_TEST")
    assert text.startswith("json_schema is not supported for [key] ([key] [key]")
    assert "live-abcdef" not in text and "sk-proj" not in text and "abc.def" not in text
    assert len(text) == 300 and text.endswith("…")
    plain = CallFailed("http_error", "HTTP 422 from the endpoint", retryable=False, raw="")
    assert provider_message(plain, key_env="") == "HTTP 422 from the endpoint"


def test_a_400_about_something_else_is_no_verdict_on_structured_output(judged_benchmark):
    """An endpoint that refuses every request (a bad setting, an unknown model) also refuses
    the probe's plain twin: nothing is stored and the next run asks again."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    class Refuses(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = json.dumps({"error": {"message": "Unknown model: concord-sim"}}).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refuses)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        benchmark, systems = judged_benchmark
        config = judge_config(
            name="refuses everything",
            base_url=f"http://127.0.0.1:{server.server_port}/v1",
            model="concord-sim",
            timeout_seconds=5,
            max_attempts=1,
            prompt=_judge_prompt(),
        )
        run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=config)
    finally:
        server.shutdown()
    assert not OutputProbe.objects.exists()
    assert run.settings_snapshot["output_mode"] == "json_schema"
    assert run_output_notice(run=run).kind == UNCHECKED
