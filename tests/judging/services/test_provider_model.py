"""Each answered call records the model id and the `system_fingerprint` the provider
returned, and the bundle's runs record says which ones answered a run's calls."""

import pytest

from judging.models import JudgeAttempt
from judging.selectors.provider import provider_models
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start

pytestmark = pytest.mark.django_db(transaction=True)


def test_each_attempt_records_the_returned_model_and_fingerprint(
    judged_benchmark, sim_config, simulator
):
    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems, config=sim_config())
    run_here(run_id=run.pk, lanes=2)
    attempts = JudgeAttempt.objects.filter(task__run=run)
    assert attempts.count() == 8
    assert set(attempts.values_list("provider_model", "system_fingerprint")) == {
        ("concord-sim (simulated)", "concord-simulator")
    }
    assert provider_models(run.pk) == [
        {"model": "concord-sim (simulated)", "system_fingerprint": "concord-simulator", "calls": 8}
    ]
