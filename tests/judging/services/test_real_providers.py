"""Providers as they really answer: reasoning models that give their thinking in a field
of its own, and models that refuse `max_tokens` for `max_completion_tokens`. Each is the
simulator over HTTP in that provider's mode."""

import pytest

from judging.models import JudgeAttempt, JudgeTask
from judging.services.lane_pool import pool_run
from judging.services.runs import judge_run_start

pytestmark = pytest.mark.django_db(transaction=True)


def _run(judged_benchmark, sim_config):
    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=sim_config())
    pool_run(run_id=run.pk, lanes=2)
    return run


def test_a_reply_with_its_reasoning_in_a_field_of_its_own_is_accepted_and_kept(
    judged_benchmark, sim_config, simulator
):
    simulator.configure(quirks="reasoning_field")
    run = _run(judged_benchmark, sim_config)
    assert set(run.tasks.values_list("status", flat=True)) == {JudgeTask.Status.DONE}
    attempts = JudgeAttempt.objects.filter(task__run=run, outcome=JudgeAttempt.Outcome.OK)
    assert attempts.count() == 4
    assert all(a.model_reasoning.startswith("Thinking (simulated)") for a in attempts)


def test_a_model_that_wants_max_completion_tokens_gets_it(judged_benchmark, sim_config, simulator):
    simulator.configure(quirks="max_completion_tokens_only")
    run = _run(judged_benchmark, sim_config)
    assert set(run.tasks.values_list("status", flat=True)) == {JudgeTask.Status.DONE}
    # One refusal at most per process and model: the next calls ask the right way at once.
    stats = simulator.stats()
    assert stats["requests"] - 4 <= 2, stats
    assert not JudgeAttempt.objects.filter(task__run=run).exclude(outcome="ok").exists()
