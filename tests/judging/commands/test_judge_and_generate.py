import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Response
from judging.models import JudgeRun, Verdict

pytestmark = pytest.mark.django_db(transaction=True)


def test_judge_command_runs_in_its_own_process_and_prints_one_summary(
    judged_benchmark, simulator, capsys
):
    call_command(
        "judge",
        "--benchmark",
        "hb",
        "--system",
        "Alpha",
        "--system",
        "Beta",
        "--base-url",
        simulator.base_url,
        "--model",
        "concord-sim",
        "--concurrency",
        "4",
        "--json",
    )
    summary = json.loads(capsys.readouterr().out)
    assert (summary["tasks"], summary["done"], summary["failed"]) == (8, 8, 0)
    assert summary["calls"] == 8 + 1  # each task's call and the structured-output probe
    assert summary["prompt_tokens"] > 0
    run = JudgeRun.objects.get(pk=summary["run"])
    assert run.status == "finished" and Verdict.objects.filter(task__run=run).count() == 32
    call_command("leaderboard", "--benchmark", "hb", "--json")
    board = json.loads(capsys.readouterr().out)
    assert [row["cases_scored"] for row in board["systems"]] == [4, 4]


def test_judge_command_names_bad_arguments(judged_benchmark, simulator):
    with pytest.raises(CommandError, match="unknown system"):
        call_command(
            "judge",
            "--benchmark",
            "hb",
            "--system",
            "Nobody",
            "--base-url",
            simulator.base_url,
            "--model",
            "m",
        )
    with pytest.raises(CommandError, match="CONCORD_MISSING_KEY"):
        call_command(
            "judge",
            "--benchmark",
            "hb",
            "--system",
            "Alpha",
            "--base-url",
            simulator.base_url,
            "--model",
            "m",
            "--api-key-env",
            "CONCORD_MISSING_KEY",
        )


def test_generate_command_writes_replies_for_a_new_system(judged_benchmark, simulator, capsys):
    call_command(
        "generate",
        "--benchmark",
        "hb",
        "--system",
        "Gamma",
        "--base-url",
        simulator.base_url,
        "--model",
        "concord-sim",
        "--json",
    )
    summary = json.loads(capsys.readouterr().out)
    assert (summary["done"], summary["failed"]) == (4, 0)
    assert Response.objects.filter(system__name="Gamma", source="generation").count() == 4
