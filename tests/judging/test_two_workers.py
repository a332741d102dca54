"""A judge run spread over two real Celery worker processes: every verdict exactly once,
even when one worker is killed with SIGKILL in the middle. CI runs this against
PostgreSQL and Redis; locally it uses the folder broker."""

import signal
from collections import Counter

import pytest

from judging.models import JudgeRun, JudgeTask, Verdict
from judging.services.runs import judge_run_start
from judging.tasks import judge_lane
from tests.judging.workers import Broker, start_worker, stop, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.multiworker]


@pytest.fixture
def broker(tmp_path):
    broker = Broker(tmp_path)
    if broker.url.startswith("redis://"):
        import redis

        redis.Redis.from_url(broker.url).flushdb()  # no leftovers from earlier runs
    return broker


def assert_exactly_once(run: JudgeRun, tasks: int, criteria: int) -> None:
    assert Counter(JudgeTask.objects.filter(run=run).values_list("status", flat=True)) == {
        "done": tasks
    }
    pairs = list(Verdict.objects.filter(task__run=run).values_list("task", "criterion"))
    assert len(pairs) == len(set(pairs)) == tasks * criteria


def test_a_run_spread_over_two_workers_writes_every_verdict_once(
    judged_benchmark, sim_config, simulator, broker, tmp_path, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    simulator.configure(latency_ms=300)
    benchmark, systems = judged_benchmark
    run = judge_run_start(
        benchmark=benchmark, systems=systems, config=sim_config(max_concurrency=4)
    )
    workers = [start_worker(broker, f"w{i}", tmp_path / f"w{i}.log", 2) for i in (1, 2)]
    try:
        with broker.connection() as conn:
            for _ in range(4):
                judge_lane.apply_async((run.pk,), connection=conn)
        wait_for(
            lambda: JudgeRun.objects.get(pk=run.pk).status == "finished",
            timeout=120,
            message="the run to finish",
        )
    finally:
        for worker in workers:
            stop(worker)
    assert_exactly_once(run, tasks=8, criteria=4)
    for i in (1, 2):
        assert "judge_lane" in (tmp_path / f"w{i}.log").read_text(), f"worker {i} did no lane"


def test_killing_one_of_two_workers_loses_and_duplicates_nothing(
    judged_benchmark, sim_config, simulator, broker, tmp_path, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    simulator.configure(latency_ms=600)
    benchmark, systems = judged_benchmark
    run = judge_run_start(
        benchmark=benchmark,
        systems=systems,
        config=sim_config(max_concurrency=4, timeout_seconds=3),
    )
    doomed = start_worker(broker, "doomed", tmp_path / "doomed.log", 2)
    survivor = start_worker(broker, "survivor", tmp_path / "survivor.log", 2)
    try:
        with broker.connection() as conn:
            for _ in range(4):
                judge_lane.apply_async((run.pk,), connection=conn)
        wait_for(
            lambda: JudgeTask.objects.filter(run=run, status="done").count() >= 2,
            timeout=60,
            message="the first verdicts",
        )
        stop(doomed, signal.SIGKILL)
        assert JudgeTask.objects.filter(run=run, status="done").count() < 8
        wait_for(
            lambda: JudgeRun.objects.get(pk=run.pk).status == "finished",
            timeout=120,
            message="the surviving worker to finish the run",
        )
    finally:
        stop(doomed, signal.SIGKILL)
        stop(survivor)
    assert_exactly_once(run, tasks=8, criteria=4)
