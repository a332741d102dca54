"""The `judge` command says when the endpoint refused structured output, and asks it once
per judge version: a second run of the same version makes no probe."""

import json

import pytest
from django.core.management import call_command

from judging.models import JudgeRun, OutputProbe
from judging.services.run_control import judge_run_interrupt
from judging.services.runs import judge_run_start

pytestmark = pytest.mark.django_db(transaction=True)

NOTICE = (
    "note: this endpoint refused structured output; Concord asks for plain JSON and checks it "
    "against the schema (the endpoint said: Invalid parameter: 'response_format' of type "
    "'json_schema' is not supported with this model.)"
)


def _judge(simulator, *extra: str) -> None:
    call_command(
        "judge",
        "--benchmark",
        "hb",
        "--system",
        "Alpha",
        "--base-url",
        simulator.base_url,
        "--model",
        "concord-sim",
        "--concurrency",
        "2",
        "--json",
        *extra,
    )


def test_the_judge_command_prints_the_refusal_and_probes_once_per_version(
    judged_benchmark, simulator, capsys
):
    simulator.configure(quirks="no_json_schema")
    _judge(simulator)
    out, err = capsys.readouterr()
    assert NOTICE in err
    summary = json.loads(out)
    assert (summary["done"], summary["failed"]) == (4, 0)

    _judge(simulator, "--fresh")
    out, err = capsys.readouterr()
    assert NOTICE in err and json.loads(out)["done"] == 4
    assert JudgeRun.objects.count() == 2
    assert len({run.judge_version_id for run in JudgeRun.objects.all()}) == 1
    assert OutputProbe.objects.count() == 1
    stats = simulator.stats()
    # One refused probe and its answered plain twin, then eight calls asking for plain JSON.
    assert (stats["statuses"]["400"], stats["requests"]) == (1, 9)


def test_the_judge_command_says_nothing_when_structured_output_is_accepted(
    judged_benchmark, simulator, capsys
):
    _judge(simulator)
    _, err = capsys.readouterr()
    assert "structured output" not in err
    assert OutputProbe.objects.get().finding == "accepted"


def test_runs_resume_probes_a_version_without_an_answer_and_prints_the_refusal(
    judged_benchmark, sim_config, simulator, capsys
):
    """The run started while the endpoint failed (no answer stored); resuming it asks
    again, finds the refusal, and the rest of the run asks for plain JSON."""
    simulator.configure(rate_500=1.0)
    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=sim_config())
    judge_run_interrupt(run_id=run.pk, release=True)
    assert not OutputProbe.objects.exists()

    simulator.configure(rate_500=0.0, quirks="no_json_schema")
    call_command("runs", "resume", str(run.pk), "--json")
    out, err = capsys.readouterr()
    assert NOTICE in err
    assert json.loads(out)["done"] == 4
    assert OutputProbe.objects.get().finding == "refused"
