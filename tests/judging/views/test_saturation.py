import pytest
from django.urls import reverse

from judging.selectors.saturation import saturated_criteria
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start
from tests.conftest import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def test_criteria_every_system_gets_the_same_verdict_on_are_reported(
    judged_benchmark, sim_config, simulator, coordinator, expert
):
    benchmark, systems = judged_benchmark
    simulator.configure(hit_rate=1.0)  # every criterion hit for every system
    run = judge_run_start(benchmark=benchmark, systems=systems, config=sim_config())
    run_here(run_id=run.pk, lanes=2)
    rows = saturated_criteria(benchmark=benchmark, run=run)
    assert len(rows) == 16 and all(row.all_hit and row.systems == 2 for row in rows)

    simulator.configure(hit_rate=0.5)
    mixed = judge_run_start(
        benchmark=benchmark, systems=systems, config=sim_config(name="b"), fresh_calls=True
    )
    run_here(run_id=mixed.pk, lanes=2)
    some = saturated_criteria(benchmark=benchmark, run=mixed)
    assert len(some) < 16
    for row in some:
        verdicts = set(
            mixed.tasks.filter(
                verdicts__criterion__position=row.position,
                response__case__external_id=row.case,
            ).values_list("verdicts__hit", flat=True)
        )
        assert verdicts == {row.all_hit}

    url = reverse("rubric-saturated", args=["hb"])
    page = client_for(coordinator).get(url, {"run": run.pk}).content.decode()
    assert "16 saturated criteria in run" in page and "all hit" in page
    assert client_for(expert).get(url).status_code == 403
