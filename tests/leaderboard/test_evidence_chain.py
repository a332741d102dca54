"""The claim "this leaderboard's judge agrees with the experts" rests on evidence for that
very judge: each finding of the evidence-chain report, reproduced through the pages and
commands people use, with real judge calls to the simulator over HTTP."""

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, Criterion, ReviewRound, System
from annotation.selectors.review import item_criteria
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeConfig, JudgeRun, PromptTemplate, Verdict
from leaderboard.models import GateEvaluation, LeaderboardSnapshot
from tests.conftest import client_for, jsonl_bytes, lines, question
from tests.judging.conftest import simulator  # noqa: F401 - the simulator over HTTP

pytestmark = pytest.mark.django_db(transaction=True)

SYSTEMS = ("Alpha", "Beta", "Gamma")
CASES = ("c1", "c2", "c3", "c4")


@pytest.fixture
def world(coordinator):
    rows = [question(q, difficulty="hard" if i % 2 else "normal") for i, q in enumerate(CASES)]
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="ev")
    for name in SYSTEMS:
        answers = [{"question_id": q, "response": f"{name} 对 {q} 的回答"} for q in CASES]
        responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="ev", system_name=name)
    experts = [
        user_create_with_role(username=f"ev-e{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    return Benchmark.objects.get(slug="ev"), experts


def open_round(benchmark, experts, name: str) -> ReviewRound:
    return round_open(
        benchmark=benchmark,
        name=name,
        systems=list(System.objects.filter(name__in=SYSTEMS)),
        experts=experts,
        fraction=1.0,
    )


def vote(round_: ReviewRound, experts, *, like: JudgeRun, agree: bool) -> None:
    """Every expert rates every item: as the run's judge did (agree), or the opposite."""
    judged = {
        (response, position): hit
        for response, position, hit in Verdict.objects.filter(task__run=like).values_list(
            "task__response_id", "criterion__position", "hit"
        )
    }
    for expert in experts:
        while (assignment := assignment_next(expert=expert, round_=round_)) is not None:
            response = assignment.item.response_id
            assignment_submit(
                assignment=assignment,
                votes=[
                    VoteInput(c.pk, judged[(response, c.position)] == agree)
                    for c in item_criteria(assignment=assignment)
                ],
                comment="",
                active_seconds=30,
                base_revision=0,
            )


def config_form(simulator, **changes) -> dict:  # noqa: F811
    values = {
        "name": "sim judge",
        "base_url": simulator.base_url,
        "model": "concord-sim",
        "api_key_env": "",
        "prompt": PromptTemplate.objects.get(name="judge-zh", version=1).pk,
        "structured_output": "on",
        "temperature": 0,
        "seed": 1,
        "max_output_tokens": 4096,
        "timeout_seconds": 10,
        "max_concurrency": 4,
        "requests_per_minute": 0,
        "max_attempts": 3,
        "backoff_seconds": 0.01,
        "price_prompt_per_1k": 0,
        "price_completion_per_1k": 0,
        "is_simulated": "on",
    }
    values.update(changes)
    return values


def start_run(client, benchmark) -> JudgeRun:
    config = JudgeConfig.objects.get(name="sim judge")
    systems = [s.pk for s in System.objects.filter(name__in=SYSTEMS)]
    response = client.post(
        reverse("judge-run-new"),
        {"benchmark": benchmark.pk, "systems": systems, "config": config.pk},
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    run = JudgeRun.objects.order_by("-pk").first()
    assert run.status == JudgeRun.Status.FINISHED  # test settings run the lanes in-process
    return run


def publish(client, run: JudgeRun):
    return client.post(
        reverse("leaderboard-publish", args=["ev"]),
        {"run": run.pk, "profile": "heartbench", "confirm": "yes"},
    )


def record(client, round_: ReviewRound, run: JudgeRun) -> None:
    client.post(reverse("gate-record", args=["ev"]), {"round": round_.pk, "run": run.pk})


def test_an_edited_configuration_does_not_publish_on_the_old_evaluation(
    world,
    coordinator,
    simulator,  # noqa: F811
):
    benchmark, experts = world
    client = client_for(coordinator)
    assert client.post(reverse("judge-config-new"), config_form(simulator)).status_code == 302
    checked = start_run(client, benchmark)
    round_ = open_round(benchmark, experts, "R1")
    vote(round_, experts, like=checked, agree=True)
    record(client, round_, checked)
    assert GateEvaluation.objects.get().passed

    # The passed configuration is edited (another seed: other verdicts), then run.
    config = JudgeConfig.objects.get(name="sim judge")
    edited = config_form(simulator, seed=2)
    assert client.post(reverse("judge-config-edit", args=[config.pk]), edited).status_code == 302
    unchecked = start_run(client, benchmark)
    publish(client, unchecked)
    assert not LeaderboardSnapshot.objects.exists()
    # The version that was checked still publishes.
    publish(client, checked)
    assert LeaderboardSnapshot.objects.get().gate.run == checked


def test_the_judge_command_with_another_setting_is_a_judge_the_gate_never_saw(
    world,
    coordinator,
    simulator,  # noqa: F811
    capsys,
):
    benchmark, experts = world

    def judge(*extra: str) -> JudgeRun:
        args = ["judge", "--benchmark", "ev", "--base-url", simulator.base_url]
        args += ["--model", "concord-sim", "--concurrency", "4", "--json"]
        for name in SYSTEMS:
            args += ["--system", name]
        call_command(*args, *extra)
        return JudgeRun.objects.get(pk=json.loads(capsys.readouterr().out)["run"])

    checked = judge("--seed", "1")
    round_ = open_round(benchmark, experts, "R1")
    vote(round_, experts, like=checked, agree=True)
    client = client_for(coordinator)
    record(client, round_, checked)
    other = judge("--seed", "7", "--temperature", "0.7")
    publish(client, other)
    assert not LeaderboardSnapshot.objects.exists()
    assert other.judge_version != checked.judge_version
    assert other.config == checked.config  # one configuration, two versions
    # The same settings again find the checked version.
    assert judge("--seed", "1").judge_version == checked.judge_version


def test_recording_an_older_passing_round_again_does_not_reopen_publishing(
    world,
    coordinator,
    simulator,  # noqa: F811
):
    benchmark, experts = world
    client = client_for(coordinator)
    client.post(reverse("judge-config-new"), config_form(simulator))
    run = start_run(client, benchmark)
    older = open_round(benchmark, experts, "R1")
    vote(older, experts, like=run, agree=True)
    record(client, older, run)
    newer_experts = [
        user_create_with_role(username=f"ev-n{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    newer = open_round(benchmark, newer_experts, "R2")
    vote(newer, newer_experts, like=run, agree=False)
    record(client, newer, run)
    assert [e.passed for e in GateEvaluation.objects.order_by("pk")] == [True, False]
    record(client, older, run)  # the older round, recorded again: it still passes
    assert GateEvaluation.objects.order_by("pk").last().passed
    response = publish(client, run)
    assert not LeaderboardSnapshot.objects.exists()
    page = client.get(response["Location"]).content.decode()
    failed = GateEvaluation.objects.get(round=newer)
    assert f"evaluation #{failed.pk} (round R2" in page


def test_a_run_on_another_rubric_version_is_not_counted_as_failed_calls(
    world,
    coordinator,
    simulator,  # noqa: F811
):
    benchmark, experts = world
    client = client_for(coordinator)
    client.post(reverse("judge-config-new"), config_form(simulator))
    round_ = open_round(benchmark, experts, "R1")
    # c1's rubric changes after the round froze it; the run judges the new version.
    edited = question("c1")
    edited["rubric"][0]["content"] = "指出用户的疲惫、压力感和无力感"
    benchmark_import(chunks=lines(jsonl_bytes([edited])), benchmark_slug="ev")
    run = start_run(client, benchmark)
    for expert in experts:
        while (assignment := assignment_next(expert=expert, round_=round_)) is not None:
            assignment_submit(
                assignment=assignment,
                votes=[VoteInput(c.pk, True) for c in item_criteria(assignment=assignment)],
                comment="",
                active_seconds=30,
                base_revision=0,
            )
    page = client.get(reverse("agreement", args=["ev"]), {"round": round_.pk, "run": run.pk})
    text = page.content.decode()
    # c1's units of the three systems, on the version the round froze.
    other = (
        3
        * Criterion.objects.filter(
            rubric_version__case__external_id="c1", rubric_version__number=1
        ).count()
    )
    assert f"{other} judged on a different rubric version" in text
    assert "0 whose judge call failed" in text
    # Such a run cannot be recorded as evidence for the round.
    record(client, round_, run)
    assert not GateEvaluation.objects.exists()


def test_latest_is_the_newest_run_that_covers_the_round_not_a_partial_one(
    world,
    coordinator,
    simulator,  # noqa: F811
    capsys,
):
    benchmark, experts = world
    client = client_for(coordinator)
    client.post(reverse("judge-config-new"), config_form(simulator))
    full = start_run(client, benchmark)
    round_ = open_round(benchmark, experts, "R1")
    vote(round_, experts, like=full, agree=True)
    config = JudgeConfig.objects.get(name="sim judge")
    alpha = System.objects.get(name="Alpha")
    client.post(
        reverse("judge-run-new"),
        {"benchmark": benchmark.pk, "systems": [alpha.pk], "config": config.pk},
    )
    partial = JudgeRun.objects.order_by("-pk").first()
    assert partial != full and partial.status == JudgeRun.Status.FINISHED
    call_command("agreement_report", "--benchmark", "ev", "--round", "R1", "--judge-run", "latest")
    report = json.loads(capsys.readouterr().out)
    assert report["judge_run"] == full.pk and report["percent_agreement"] == 1.0


def test_three_imports_under_one_judge_make_one_leaderboard_of_three_systems(world, capsys):
    for name in SYSTEMS:
        scored = [{"question_id": q, "score_detail": [1, 0, 1, 0]} for q in CASES]
        path = f"/tmp/ev-{name}.jsonl"
        with open(path, "wb") as out:
            out.write(jsonl_bytes(scored))
        call_command(
            "import_judgments", path, "--benchmark", "ev", "--system", name, "--judge", "sonnet"
        )
    capsys.readouterr()
    call_command("leaderboard", "--benchmark", "ev", "--json")
    board = json.loads(capsys.readouterr().out)
    assert sorted(row["system"] for row in board["systems"]) == sorted(SYSTEMS)
