"""HeartBench's generation script writes a reply it could not get as "Error: ..." text, and
its scorer skips those responses. Concord keeps them, flagged at import with a count, and
leaves them out of judge runs (unless asked) and of review rounds."""

import json

import pytest
from django.core.management import call_command

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, Response, ReviewItem, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_rounds import round_open
from judging.models import JudgeTask
from judging.services.runs import judge_run_start
from tests.conftest import jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db

ANSWERS = {
    "c1": "我在听，你愿意多说一点吗？",
    "c2": "Error: Request timed out.",
    "c3": "   ",
    "c4": "听起来这件事让你很难受。",
}


@pytest.fixture
def benchmark_with_failures(db):
    rows = [question(f"c{i}") for i in range(1, 5)]
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb")
    answers = [{"question_id": k, "response": v} for k, v in ANSWERS.items()]
    summary = responses_import(
        chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name="M"
    )
    return summary


def test_failed_generations_are_flagged_and_counted_at_import(benchmark_with_failures):
    summary = benchmark_with_failures
    assert summary.responses_created == 4 and summary.failed_generations == 2
    assert any("2 responses are empty or begin with 'Error'" in w for w in summary.warnings)
    flagged = dict(Response.objects.values_list("case__external_id", "failed_generation"))
    assert flagged == {"c1": False, "c2": True, "c3": True, "c4": False}


def test_the_command_prints_the_count(tmp_path, benchmark_with_failures, capsys):
    path = tmp_path / "more.jsonl"
    path.write_bytes(jsonl_bytes([{"question_id": "c1", "response": "Error 429"}]))
    call_command("import_responses", str(path), "--benchmark", "hb", "--system", "N", "--json")
    assert json.loads(capsys.readouterr().out)["failed_generations"] == 1


def test_judge_runs_leave_them_out_unless_asked(benchmark_with_failures, sim_config):
    benchmark, systems = Benchmark.objects.get(slug="hb"), list(System.objects.all())
    config = sim_config()
    run = judge_run_start(benchmark=benchmark, systems=systems, config=config)
    judged = set(JudgeTask.objects.filter(run=run).values_list("case__external_id", flat=True))
    assert judged == {"c1", "c4"}
    every = judge_run_start(
        benchmark=benchmark, systems=systems, config=config, failed_generations=True
    )
    assert JudgeTask.objects.filter(run=every).count() == 4


def test_review_rounds_leave_them_out(benchmark_with_failures):
    experts = [
        user_create_with_role(username=f"e{i}", password="pw-Concord-2026", role=EXPERT)
        for i in range(3)
    ]
    round_open(
        benchmark=Benchmark.objects.get(slug="hb"),
        name="R",
        systems=list(System.objects.all()),
        experts=experts,
        fraction=1.0,
    )
    sampled = set(ReviewItem.objects.values_list("response__case__external_id", flat=True))
    assert sampled == {"c1", "c4"}
