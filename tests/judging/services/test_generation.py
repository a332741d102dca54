import pytest

from annotation.models import Response, System
from judging.models import JudgeRun, PromptTemplate
from judging.services.lanes import run_here
from judging.services.runs import RunNotStartable, generation_run_start
from tests.conftest import judge_config as make_config

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_generation_run_writes_a_response_per_unanswered_case(
    judged_benchmark, sim_config, simulator
):
    benchmark, _ = judged_benchmark
    config = sim_config(prompt=PromptTemplate.objects.get(name="generate-zh", version=1))
    run = generation_run_start(benchmark=benchmark, system_name="Gamma", config=config)
    assert run.kind == JudgeRun.Kind.GENERATION and run.tasks.count() == 4
    run_here(run_id=run.pk, lanes=2)
    run.refresh_from_db()
    assert run.status == "finished"
    replies = Response.objects.filter(system__name="Gamma")
    assert replies.count() == 4
    assert all(r.source == "generation" and r.text.strip() for r in replies)
    assert set(run.tasks.values_list("response__system__name", flat=True)) == {"Gamma"}
    # A second run has nothing left to generate for this system.
    with pytest.raises(RunNotStartable, match="already has a response to every case"):
        generation_run_start(benchmark=benchmark, system_name="Gamma", config=config)


def test_generation_needs_a_generation_prompt_and_judging_a_judge_prompt(
    judged_benchmark, sim_config
):
    benchmark, systems = judged_benchmark
    judge_config = sim_config()
    with pytest.raises(RunNotStartable, match="generation prompt"):
        generation_run_start(benchmark=benchmark, system_name="Gamma", config=judge_config)
    assert not System.objects.filter(name="Gamma").exists()
    from judging.services.runs import judge_run_start

    gen = make_config(
        name="gen", model="m", prompt=PromptTemplate.objects.get(name="generate-en", version=1)
    )
    with pytest.raises(RunNotStartable, match="judge prompt"):
        judge_run_start(benchmark=benchmark, systems=systems, config=gen)
