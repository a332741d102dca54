"""`judge --samples K`: a self-consistency judge from the command line."""

import json

import pytest
from django.core.management import CommandError, call_command

from judging.models import JudgeRun, JudgeVersion, MemberVerdict

pytestmark = pytest.mark.django_db(transaction=True)


def _judge(simulator, *extra) -> None:
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
        "--json",
        *extra,
    )


def test_five_samples_from_the_command_line(judged_benchmark, simulator, capsys):
    _judge(simulator, "--samples", "5", "--temperature", "0.8", "--seed", "11")
    summary = json.loads(capsys.readouterr().out)
    assert (summary["tasks"], summary["done"], summary["failed"]) == (4, 4, 0)
    assert summary["calls"] == 4 * 5 + 1  # five members per task, and the output probe
    assert summary["ensemble"]["size"] == 5 and summary["ensemble"]["units"] == 16
    run = JudgeRun.objects.get(pk=summary["run"])
    assert run.judge_version.ensemble == {"kind": "self_consistency", "samples": 5}
    assert MemberVerdict.objects.filter(task__run=run).count() == 4 * 4 * 5
    call_command("runs", "show", str(run.pk))
    assert "ensemble (self_consistency, 5 members)" in capsys.readouterr().out


def test_samples_at_temperature_zero_are_refused_before_anything_is_written(
    judged_benchmark, simulator
):
    with pytest.raises(CommandError, match="temperature above 0"):
        _judge(simulator, "--samples", "5")
    with pytest.raises(CommandError, match="must be odd"):
        _judge(simulator, "--samples", "2", "--temperature", "0.5")
    assert not JudgeVersion.objects.exists() and not JudgeRun.objects.exists()


def test_the_dry_run_counts_every_members_call(judged_benchmark, simulator, capsys):
    _judge(simulator, "--dry-run")
    single = json.loads(capsys.readouterr().out)
    _judge(simulator, "--dry-run", "--samples", "5", "--temperature", "0.8")
    five = json.loads(capsys.readouterr().out)
    assert (single["calls"], five["calls"]) == (4, 20)
    assert five["prompt_tokens"] == pytest.approx(5 * single["prompt_tokens"], abs=5)
    assert five["completion_tokens"] == pytest.approx(5 * single["completion_tokens"], abs=5)
