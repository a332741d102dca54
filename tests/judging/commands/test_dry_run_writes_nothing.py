"""`judge --dry-run` creates nothing and uses no id: no configuration, version, prompt
template, run or price is written (not even in a transaction rolled back, which would use
up PostgreSQL's sequence numbers), and the next real run gets the id it would have had."""

import json

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from judging.default_prompts import JUDGE_ZH_SYSTEM, JUDGE_ZH_USER
from judging.models import JudgeConfig, JudgeRun, JudgeVersion, PromptTemplate

pytestmark = pytest.mark.django_db(transaction=True)

WRITES = ("INSERT", "UPDATE", "DELETE", "SAVEPOINT")


def _judge(simulator, capsys, *extra) -> dict:
    capsys.readouterr()
    call_command(
        "judge", "--benchmark", "hb", "--system", "Alpha", "--system", "Beta",
        "--base-url", simulator.base_url, "--model", "concord-sim", "--json", *extra,
    )  # fmt: skip
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def counts() -> tuple:
    return tuple(m.objects.count() for m in (JudgeConfig, JudgeVersion, PromptTemplate, JudgeRun))


@pytest.mark.parametrize("with_file", [False, True])
def test_a_dry_run_writes_nothing(judged_benchmark, simulator, capsys, tmp_path, with_file):
    extra = ["--price-in", "2", "--price-out", "8"]
    if with_file:
        prompt = tmp_path / "mine.json"
        prompt.write_text(
            json.dumps({"system": JUDGE_ZH_SYSTEM + "\n严格评分。", "user": JUDGE_ZH_USER}),
            encoding="utf-8",
        )
        extra += ["--prompt-file", str(prompt)]
    first = _judge(simulator, capsys)
    before = counts()
    with CaptureQueriesContext(connection) as queries:
        estimate = _judge(simulator, capsys, "--dry-run", "--fresh", *extra)
    written = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(WRITES)]
    assert written == []
    assert counts() == before
    assert estimate["tasks"] == 8 and estimate["price_prompt_per_1k"].rstrip("0") == "0.002"
    second = _judge(simulator, capsys, "--fresh", *extra)
    assert second["run"] == first["run"] + 1  # the dry run used no id


def test_judge_json_reports_failed_tasks_and_exits_non_zero(judged_benchmark, simulator, capsys):
    """Every task fails (each reply has a verdict too many): the summary says
    "finished_with_failures", as `runs show` does, and the command exits non-zero."""
    simulator.configure(rate_wrong_count=1.0)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        call_command(
            "judge", "--benchmark", "hb", "--system", "Alpha", "--base-url", simulator.base_url,
            "--model", "concord-sim", "--json", "--max-attempts", "1",
        )  # fmt: skip
    assert exited.value.code not in (0, None)
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["status"] == "finished_with_failures"
    assert summary["failed"] == summary["tasks"] > 0
