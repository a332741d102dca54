"""Cost before and after: `judge --dry-run` estimates the run it would make (against the
simulator over HTTP) without creating it, and the summary gives the cost and the answers
reused."""

import json

import pytest
from django.core.management import CommandError, call_command

from judging.models import JudgeConfig, JudgeRun, OutputProbe

# The command judges in threads of its own, which see only committed rows.
pytestmark = pytest.mark.django_db(transaction=True)


def _judge(simulator, capsys, *extra) -> dict:
    capsys.readouterr()
    call_command(
        "judge", "--benchmark", "hb", "--system", "Alpha", "--system", "Beta",
        "--base-url", simulator.base_url, "--model", "concord-sim", "--json", *extra,
    )  # fmt: skip
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_the_dry_run_estimates_within_a_tenth_of_the_real_run(judged_benchmark, simulator, capsys):
    estimate = _judge(simulator, capsys, "--dry-run", "--price-in", "2", "--price-out", "8")
    assert not JudgeRun.objects.exists()  # nothing was created
    assert simulator.stats()["requests"] == 0  # and nothing called, not even the probe
    assert not OutputProbe.objects.exists()
    assert (estimate["tasks"], estimate["cached"], estimate["calls"]) == (8, 0, 8)
    summary = _judge(simulator, capsys, "--price-in", "2", "--price-out", "8")
    real = summary["prompt_tokens"] + summary["completion_tokens"]
    guessed = estimate["prompt_tokens"] + estimate["completion_tokens"]
    assert abs(guessed - real) <= 0.1 * real, (estimate, summary)
    # The real run kept the prices on the configuration (given per million, kept per 1,000).
    config = JudgeConfig.objects.get()
    assert str(config.price_prompt_per_1k).rstrip("0") == "0.002"
    expected = (summary["prompt_tokens"] * 0.002 + summary["completion_tokens"] * 0.008) / 1000
    assert float(summary["cost"]) == pytest.approx(expected, abs=1e-4)
    assert summary["cached"] == 0


def test_a_second_dry_run_finds_every_answer_cached(judged_benchmark, simulator, capsys):
    _judge(simulator, capsys)
    again = _judge(simulator, capsys, "--dry-run")
    assert (again["cached"], again["calls"], again["prompt_tokens"]) == (8, 0, 0)
    assert again["calibrated_from_history"] is True
    assert JudgeRun.objects.count() == 1
    summary = _judge(simulator, capsys)
    assert summary["cached"] == 8 and summary["prompt_tokens"] == 0


def test_a_negative_price_is_refused(judged_benchmark, simulator, capsys):
    with pytest.raises(CommandError, match="--price-in must not be negative"):
        _judge(simulator, capsys, "--dry-run", "--price-in", "-1")


def test_a_dry_run_builds_the_requests_as_the_stored_probe_says(
    judged_benchmark, simulator, capsys
):
    """The endpoint refused structured output: the runs ask for plain JSON, and so does the
    estimate, which finds the first run's answers cached."""
    simulator.configure(quirks="no_json_schema")
    _judge(simulator, capsys)
    requests = simulator.stats()["requests"]
    again = _judge(simulator, capsys, "--dry-run")
    assert (again["cached"], again["calls"]) == (8, 0)
    assert simulator.stats()["requests"] == requests
