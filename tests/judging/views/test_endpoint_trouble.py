"""The run page says why calls are failing when the judge endpoint is down or slow.

Calls go over real HTTP: to a loopback port nobody listens on, or to the simulator with its
fault injection. Lanes run in this process for a bounded time, leaving tasks waiting on
their back-off, which is what a coordinator sees while the endpoint is down."""

import re
import socket

import pytest
from django.urls import reverse

from judging.models import JudgeRun, JudgeTask
from judging.selectors.runs import endpoint_trouble
from judging.services.lanes import lane_run
from judging.services.runs import judge_run_start
from tests.conftest import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_alpha(judged_benchmark, config) -> JudgeRun:
    benchmark, systems = judged_benchmark
    return judge_run_start(benchmark=benchmark, systems=systems[:1], config=config)


def attempt_each_task(run: JudgeRun, *, times: int) -> None:
    """Run a lane until every task has been tried `times` times (retries back off for long
    enough that no task is tried more often meanwhile)."""
    for _ in range(50):
        if not run.tasks.filter(attempts__lt=times).exists():
            return
        lane_run(run_id=run.pk, max_seconds=0.5)
    raise AssertionError("the lanes did not get through the tasks")


def progress_partial(user, run: JudgeRun) -> str:
    response = client_for(user).get(
        reverse("judge-run", args=[run.pk]), headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    return response.content.decode()


def test_a_closed_port_is_reported_as_not_answering_with_the_next_retry(
    judged_benchmark, sim_config, coordinator
):
    config = sim_config(
        base_url=f"http://127.0.0.1:{closed_port()}/v1", max_attempts=5, backoff_seconds=30
    )
    run = start_alpha(judged_benchmark, config)
    attempt_each_task(run, times=1)
    assert set(run.tasks.values_list("status", flat=True)) == {JudgeTask.Status.PENDING}

    trouble = endpoint_trouble(run=run)
    assert trouble.not_answering and trouble.failed == 4
    assert trouble.reasons == [("connection error", 4)]
    assert 0 < trouble.retry_in_seconds <= 30

    html = progress_partial(coordinator, run)
    assert "The judge endpoint is not answering" in html
    assert "4 attempts failed in the last 5 minutes" in html
    assert "connection error (4)" in html
    assert re.search(r"Next retry in ~\d+ s\.", html)
    assert "hx-trigger" in html  # still running: the page keeps polling


def test_server_errors_and_timeouts_are_grouped_by_reason(
    judged_benchmark, sim_config, simulator, coordinator
):
    simulator.configure(rate_500=1.0)
    config = sim_config(max_attempts=5, backoff_seconds=30, timeout_seconds=0.3)
    run = start_alpha(judged_benchmark, config)
    attempt_each_task(run, times=1)
    first = endpoint_trouble(run=run)
    assert ("HTTP 500", 4) in first.reasons

    # The endpoint turns slow instead: the retries time out.
    simulator.configure(rate_500=0.0, rate_timeout=1.0, timeout_sleep_s=3)
    JudgeTask.objects.filter(run=run).update(not_before=None)
    attempt_each_task(run, times=2)
    trouble = endpoint_trouble(run=run)
    assert trouble.not_answering
    assert dict(trouble.reasons) == {"HTTP 500": 4, "timeout": 4}
    assert "timeout (4)" in progress_partial(coordinator, run)


def test_an_endpoint_that_recovers_is_reported_as_failing_some_calls_then_not_at_all(
    judged_benchmark, sim_config, simulator, coordinator
):
    simulator.configure(rate_500=1.0)
    run = start_alpha(judged_benchmark, sim_config(max_attempts=5, backoff_seconds=30))
    attempt_each_task(run, times=1)
    simulator.configure(rate_500=0.0)
    # Two retries fall due now; the endpoint answers them.
    due = list(run.tasks.order_by("pk").values_list("pk", flat=True)[:2])
    JudgeTask.objects.filter(pk__in=due).update(not_before=None)
    for _ in range(50):
        if run.tasks.filter(status=JudgeTask.Status.DONE).count() == 2:
            break
        lane_run(run_id=run.pk, max_seconds=0.5)
    assert run.tasks.filter(status=JudgeTask.Status.DONE).count() == 2

    html = progress_partial(coordinator, run)
    assert "The judge endpoint is failing some calls" in html
    assert "HTTP 500 (4); 2 answered" in html

    JudgeTask.objects.filter(run=run).update(not_before=None)
    assert lane_run(run_id=run.pk) == "finished"
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED
    assert endpoint_trouble(run=run) is None
    assert "endpoint-trouble" not in progress_partial(coordinator, run)


def test_rejected_replies_are_not_blamed_on_the_endpoint(judged_benchmark, sim_config, simulator):
    simulator.configure(rate_malformed=1.0)
    run = start_alpha(judged_benchmark, sim_config(max_attempts=5, backoff_seconds=30))
    attempt_each_task(run, times=1)
    assert run.tasks.filter(status=JudgeTask.Status.PENDING).count() == 4
    assert endpoint_trouble(run=run) is None
