"""A run for a round judges exactly the rubric versions the round froze, the author of a new
version is warned about open rounds, and tiny p-values stay numbers."""

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import ReviewItem
from judging.models import JudgeConfig, JudgeRun
from leaderboard.models import GateEvaluation
from leaderboard.report.agreement import agreement_report
from tests.conftest import client_for, jsonl_bytes, lines, question
from tests.judging.conftest import simulator  # noqa: F401
from tests.leaderboard.test_evidence_chain import (  # noqa: F401
    SYSTEMS,
    config_form,
    open_round,
    vote,
    world,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _new_version_of_c1():
    from annotation.services.benchmark_import import benchmark_import

    edited = question("c1")
    edited["rubric"][1]["content"] = "追问加班背后的具体压力来源"
    benchmark_import(chunks=lines(jsonl_bytes([edited])), benchmark_slug="ev")


def test_a_run_for_a_round_judges_the_versions_it_froze(
    world,  # noqa: F811
    coordinator,
    simulator,  # noqa: F811
    capsys,
):
    benchmark, experts = world
    round_ = open_round(benchmark, experts, "R1")
    _new_version_of_c1()
    call_command(
        "judge",
        "--benchmark",
        "ev",
        "--round",
        "R1",
        "--base-url",
        simulator.base_url,
        "--model",
        "concord-sim",
        "--json",
    )
    run = JudgeRun.objects.get(pk=json.loads(capsys.readouterr().out)["run"])
    frozen = dict(
        ReviewItem.objects.filter(round=round_).values_list("response_id", "rubric_version")
    )
    judged = dict(run.tasks.values_list("response_id", "rubric_version"))
    assert judged == frozen  # every item, each on the version the round froze
    c1 = run.tasks.filter(case__external_id="c1")
    assert set(c1.values_list("rubric_version__number", flat=True)) == {1}
    vote(round_, experts, like=run, agree=True)
    client = client_for(coordinator)
    client.post(reverse("gate-record", args=["ev"]), {"round": round_.pk, "run": run.pk})
    evaluation = GateEvaluation.objects.get()
    assert evaluation.passed and evaluation.report["excluded"]["judge_other_version"] == 0


def test_the_run_page_starts_a_run_for_a_round(world, coordinator, simulator):  # noqa: F811
    benchmark, experts = world
    round_ = open_round(benchmark, experts, "R1")
    _new_version_of_c1()
    client = client_for(coordinator)
    client.post(reverse("judge-config-new"), config_form(simulator))
    config = JudgeConfig.objects.get()
    response = client.post(
        reverse("judge-run-new"),
        {"benchmark": benchmark.pk, "config": config.pk, "round": round_.pk},
    )
    assert response.status_code == 302
    run = JudgeRun.objects.get()
    assert run.tasks.count() == ReviewItem.objects.filter(round=round_).count()
    assert set(
        run.tasks.filter(case__external_id="c1").values_list("rubric_version__number", flat=True)
    ) == {1}
    assert sorted(run.systems.values_list("name", flat=True)) == sorted(SYSTEMS)


def test_publishing_a_rubric_of_a_case_in_an_open_round_warns_the_author(
    world,  # noqa: F811
    coordinator,
):
    benchmark, experts = world
    open_round(benchmark, experts, "R1")
    client = client_for(coordinator)
    editor = client.get(reverse("rubric-editor", args=["ev", "c1"])).content.decode()
    assert "The open review round R1 rates this case on version 1" in editor
    rows = question("c1")["rubric"]
    posted = {
        "key": [""] * len(rows),
        "ability": [r["dimension"] for r in rows],
        "weight": ["" if r["score"] is None else str(r["score"]) for r in rows],
        "text": [r["content"] + "。" for r in rows],
        "note": "措辞更清楚",
    }
    published = client.post(reverse("rubric-publish", args=["ev", "c1"]), posted, follow=True)
    body = published.content.decode()
    assert "Published version 2 of" in body
    assert "The open review round R1 rates this case on version 1" in body
    other = client.get(reverse("rubric-editor", args=["ev", "c2"])).content.decode()
    assert "The open review round R1" in other  # c2 is in the round too
    from annotation.services.review_rounds import round_set_status

    round_set_status(round_=world[0].rounds.get(), status="closed")
    closed = client.get(reverse("rubric-editor", args=["ev", "c1"])).content.decode()
    assert "The open review round" not in closed


def test_a_tiny_p_value_is_its_value_and_outputs_keep_full_precision():
    from leaderboard.report.agreement import Unit

    units = [
        Unit(i, f"c{i}", 1, "a", "cat", "normal", "", "s", True, (("E1", True), ("E2", True)))
        for i in range(1500)
    ]
    report = agreement_report(units, resamples=20)
    assert report.percent_agreement == 1.0
    assert 0 < report.binomial_p < 1e-180  # 0.75 ** 1500, never rounded to 0.0
    assert report.binomial_log10_p == pytest.approx(1500 * -0.12493873660829995, abs=1e-9)
    mixed = [u._replace(judge=i % 7 != 0) for i, u in enumerate(units[:101])]
    assert agreement_report(mixed, resamples=20).percent_agreement == 86 / 101
