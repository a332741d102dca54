"""The run page's time left comes from the run's recent rate, and a finished run's page
links to what comes next."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from judging.models import JudgeRun, JudgeTask
from judging.selectors.runs import run_progress
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start
from tests.conftest import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def _half_done(judged_benchmark, sim_config, seconds_ago: list[int]) -> JudgeRun:
    """A running run with four tasks finished that many seconds ago and four to go."""
    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems, config=sim_config())
    now = timezone.now()
    for task, ago in zip(run.tasks.order_by("pk"), seconds_ago, strict=False):
        JudgeTask.objects.filter(pk=task.pk).update(
            status="done", finished=now - timedelta(seconds=ago)
        )
    return run


def test_time_left_follows_the_recent_rate(judged_benchmark, sim_config):
    # Four finished over the last 100 s: 2.4 a minute, so the four left take about 100 s
    # (counting only the last 60 s would say 120 s).
    run = _half_done(judged_benchmark, sim_config, [100, 75, 50, 25])
    progress = run_progress(run=run)
    assert progress.per_minute == pytest.approx(2.4, rel=0.05)
    assert progress.eta_seconds == pytest.approx(100, rel=0.05)


def test_a_slow_run_still_has_a_time_left(judged_benchmark, sim_config, coordinator):
    # A task every 100 s: nothing finished in the last minute, yet the run is moving.
    run = _half_done(judged_benchmark, sim_config, [400, 300, 200, 100])
    progress = run_progress(run=run)
    assert progress.eta_seconds == pytest.approx(400, rel=0.05)
    page = client_for(coordinator).get(reverse("judge-run", args=[run.pk])).content.decode()
    assert "40" in page and "Time left" in page


def test_a_finished_run_links_to_agreement_verdicts_and_leaderboard(
    judged_benchmark, sim_config, simulator, coordinator
):
    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems, config=sim_config())
    run_here(run_id=run.pk, lanes=2)
    page = client_for(coordinator).get(reverse("judge-run", args=[run.pk])).content.decode()
    assert 'id="next-steps"' in page
    for url in (
        reverse("agreement", args=["hb"]) + f"?run={run.pk}",
        reverse("export-download", args=["hb", "verdicts", "csv"]) + f"?run={run.pk}",
        reverse("leaderboard", args=["hb"]) + f"?run={run.pk}",
    ):
        assert url in page
        assert client_for(coordinator).get(url).status_code == 200, url
