"""An endpoint that goes down for a while mid-run: the run waits for it, probing, and goes
on when it answers again, with no task failed for the outage."""

import threading
import time
from collections import Counter

import pytest
from django.urls import reverse

from judging.models import JudgeAttempt, JudgeRun, JudgeTask, Verdict
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start
from judging.simulator import start_simulator
from tests.conftest import client_for
from tests.judging.workers import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

OUTAGE_SECONDS = 20


def test_an_endpoint_down_for_20_s_mid_run_fails_no_task(
    judged_benchmark, sim_config, simulator, coordinator
):
    simulator.configure(latency_ms=400)
    benchmark, systems = judged_benchmark
    config = sim_config(max_concurrency=2, max_attempts=3, backoff_seconds=0.01)
    run = judge_run_start(benchmark=benchmark, systems=systems, config=config)
    worker = threading.Thread(target=run_here, kwargs={"run_id": run.pk, "lanes": 2})
    worker.start()
    back = None
    try:
        wait_for(
            lambda: JudgeTask.objects.filter(run=run, status="done").count() >= 2,
            timeout=30,
            message="two tasks judged",
        )
        # Down for 20 s: first every call gets HTTP 500, then connections are refused.
        simulator.configure(rate_500=1.0)
        time.sleep(OUTAGE_SECONDS / 2)
        simulator.stop()
        time.sleep(OUTAGE_SECONDS / 2)
        assert JudgeTask.objects.filter(run=run, status="failed").count() == 0
        assert JudgeRun.objects.get(pk=run.pk).endpoint_down_since is not None
        page = client_for(coordinator).get(reverse("judge-run", args=[run.pk])).content.decode()
        assert "waiting for the endpoint" in page
        back = start_simulator(port=simulator.port, latency_ms=0)
        worker.join(timeout=60)
        assert not worker.is_alive(), "the run did not go on once the endpoint was back"
    finally:
        if back is None:
            back = start_simulator(port=simulator.port, latency_ms=0)
        worker.join(timeout=60)
        back.stop()
    run.refresh_from_db()
    assert run.status == "finished" and run.endpoint_down_since is None
    assert Counter(run.tasks.values_list("status", flat=True)) == {"done": 8}
    pairs = list(Verdict.objects.filter(task__run=run).values_list("task", "criterion"))
    assert len(pairs) == len(set(pairs)) == 32
    # The outage's attempts are in the log; they used up no task's attempts.
    lost = Counter(JudgeAttempt.objects.filter(task__run=run).values_list("outcome", flat=True))
    assert lost["http_error"] >= 3 and lost["connection"] >= 1
    assert all(t.attempts_counted <= 1 for t in run.tasks.all())
