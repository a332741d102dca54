"""A judge run survives a worker killed with SIGKILL: another worker finishes it with every
verdict written exactly once."""

import signal
from collections import Counter

import pytest

from judging.models import JudgeRun, JudgeTask, Verdict
from judging.services.runs import judge_run_start
from judging.tasks import judge_lane, judge_run_watch
from tests.judging.workers import Broker, start_worker, stop, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.multiworker]


def test_killing_a_worker_mid_run_loses_and_duplicates_nothing(
    judged_benchmark, sim_config, simulator, tmp_path, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    simulator.configure(latency_ms=700)
    benchmark, systems = judged_benchmark
    config = sim_config(max_concurrency=2, timeout_seconds=3)
    run = judge_run_start(benchmark=benchmark, systems=systems, config=config)
    broker = Broker(tmp_path)
    first = start_worker(broker, "first", tmp_path / "first.log")
    try:
        with broker.connection() as conn:
            for _ in range(2):
                judge_lane.apply_async((run.pk,), connection=conn)
            judge_run_watch.apply_async((run.pk,), connection=conn)

        def done() -> int:
            return JudgeTask.objects.filter(run=run, status="done").count()

        wait_for(lambda: done() >= 2, timeout=60, message="two tasks judged by the first worker")
        stop(first, signal.SIGKILL)
        killed_at = done()
        assert killed_at < 8, "the run ended before the worker could be killed"
        second = start_worker(broker, "second", tmp_path / "second.log")
        try:
            wait_for(
                lambda: JudgeRun.objects.get(pk=run.pk).status == "finished",
                timeout=120,
                message="the run to finish on the second worker",
            )
        finally:
            stop(second)
    finally:
        stop(first, signal.SIGKILL)
    tasks = JudgeTask.objects.filter(run=run)
    assert Counter(tasks.values_list("status", flat=True)) == {"done": 8}
    per_task = Counter(Verdict.objects.filter(task__run=run).values_list("task", flat=True))
    assert sorted(per_task.values()) == [4] * 8  # every criterion once, nothing duplicated
    pairs = Verdict.objects.filter(task__run=run).values_list("task", "criterion")
    assert len(set(pairs)) == len(pairs) == 32
