"""The judge run pages as a coordinator reads them: a lasting language notice, the review
round the run judged, next steps that arrive with the last progress update, judge runs
only in the runs list, and the new-run form limited to one benchmark's systems."""

import pytest
from django.urls import reverse

from annotation.models import Benchmark, System
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_rounds import round_open
from judging.models import JudgeRun, PromptTemplate
from tests.conftest import client_for, jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db(transaction=True)


def start(client, benchmark, config, **extra):
    data = {"benchmark": benchmark.pk, "config": config.pk, **extra}
    response = client.post(reverse("judge-run-new"), data)
    assert response.status_code == 302, response.content.decode()[-1500:]
    return JudgeRun.objects.order_by("-pk").first()


def test_an_english_prompt_on_chinese_dialogues_is_a_lasting_notice(
    judged_benchmark, sim_config, coordinator
):
    benchmark, systems = judged_benchmark
    config = sim_config(name="english", prompt=PromptTemplate.objects.get(name="judge-en"))
    client = client_for(coordinator)
    run = start(client, benchmark, config, systems=[s.pk for s in systems])
    for _ in range(2):  # still there on reload
        page = client.get(reverse("judge-run", args=[run.pk])).content.decode()
        assert 'id="language-notice"' in page


def test_the_run_page_names_the_round_it_judged_and_shows_next_steps_in_the_update(
    judged_benchmark, sim_config, coordinator, expert
):
    benchmark, systems = judged_benchmark
    round_ = round_open(
        benchmark=benchmark,
        name="R-7",
        systems=systems,
        experts=[expert],
        fraction=0.5,
        raters_per_item=1,
    )
    client = client_for(coordinator)
    run = start(client, benchmark, sim_config(), round=round_.pk)
    page = client.get(reverse("judge-run", args=[run.pk])).content.decode()
    assert 'id="run-rounds"' in page and "R-7" in page
    partial = client.get(reverse("judge-run", args=[run.pk]), headers={"HX-Request": "true"})
    assert 'id="next-steps"' in partial.content.decode()


def test_the_runs_list_shows_judge_runs_only(judged_benchmark, sim_config, coordinator):
    benchmark, systems = judged_benchmark
    client = client_for(coordinator)
    run = start(client, benchmark, sim_config(), systems=[s.pk for s in systems])
    JudgeRun.objects.filter(pk=run.pk).update(kind=JudgeRun.Kind.GENERATION)
    listed = client.get(reverse("judge-runs")).content.decode()
    assert reverse("judge-run", args=[run.pk]) not in listed


def test_the_new_run_form_offers_one_benchmarks_systems(judged_benchmark, sim_config, coordinator):
    benchmark, _systems = judged_benchmark
    benchmark_import(chunks=lines(jsonl_bytes([question("x1")])), benchmark_slug="other")
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": "x1", "response": "嗯"}])),
        benchmark_slug="other",
        system_name="Elsewhere",
    )
    client = client_for(coordinator)
    page = client.get(reverse("judge-run-new") + f"?benchmark={benchmark.pk}").content.decode()
    assert "Alpha" in page and "Elsewhere" not in page
    other = System.objects.get(name="Elsewhere")
    refused = client.post(
        reverse("judge-run-new"),
        {"benchmark": benchmark.pk, "systems": [other.pk], "config": sim_config().pk},
    )
    assert refused.status_code == 400 and not JudgeRun.objects.exists()
    assert Benchmark.objects.count() == 2
