"""The gate cannot be gamed: a round closed early or short of raters cannot pass under the
fixed rules, a judge version's failures stay in its evidence, a later failure supersedes
published boards, and the evidence must come from independent raters."""

import json

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.roles import COORDINATOR, EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, ReviewRound, System
from annotation.selectors.review import item_criteria
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open, round_set_status
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeRun
from judging.services.judgments_import import judgments_import
from leaderboard.models import GateEvaluation, GatePolicy, LeaderboardSnapshot
from tests.conftest import client_for, jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db

CASES = [f"c{i:02d}" for i in range(12)]


@pytest.fixture
def world():
    benchmark_import(chunks=lines(jsonl_bytes([question(q) for q in CASES])), benchmark_slug="gi")
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": q, "response": "嗯"} for q in CASES])),
        benchmark_slug="gi",
        system_name="Sys",
    )
    # The judge says "met" on every criterion: an expert's True agrees with it.
    judgments_import(
        chunks=lines(jsonl_bytes([{"question_id": q, "score_detail": [1] * 4} for q in CASES])),
        benchmark_slug="gi",
        system_name="Sys",
        judge_name="judge",
    )
    experts = [
        user_create_with_role(username=f"gi-e{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    return Benchmark.objects.get(slug="gi"), experts


def open_round(benchmark, experts, name, **options) -> ReviewRound:
    return round_open(
        benchmark=benchmark,
        name=name,
        systems=list(System.objects.all()),
        experts=experts,
        fraction=1.0,
        **options,
    )


def rate(round_, experts, agreeing: int, items: int | None = None) -> None:
    """Each expert rates (up to `items` of) the items handed out to them, agreeing with the
    judge on the first `agreeing` of each item's 4 criteria."""
    for expert in experts:
        done = 0
        while (items is None or done < items) and (
            assignment := assignment_next(expert=expert, round_=round_)
        ) is not None:
            assignment_submit(
                assignment=assignment,
                votes=[
                    VoteInput(c.pk, index < agreeing)
                    for index, c in enumerate(item_criteria(assignment=assignment))
                ],
                comment="",
                active_seconds=20,
                base_revision=0,
            )
            done += 1


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def record(user, round_name: str):
    return api(user).post(
        reverse("api-gate-evaluations", args=["gi"]),
        {"round": round_name, "judge": "judge"},
        format="json",
    )


@pytest.mark.parametrize("rule", ["point", "lower_bound"])
def test_a_round_closed_early_cannot_pass_under_a_fixed_rule(world, researcher, rule):
    benchmark, experts = world
    GatePolicy.objects.create(benchmark=benchmark, rule=rule)
    round_ = open_round(benchmark, experts, "early")
    rate(round_, experts, agreeing=4, items=3)  # every rated unit agrees: 100% so far
    round_set_status(round_=round_, status=ReviewRound.Status.CLOSED)

    refused = record(researcher, "early")
    assert refused.status_code == 409, refused.content
    assert refused.json()["refusal"] == "round_incomplete"
    assert "not complete" in refused.json()["detail"]
    with pytest.raises(CommandError, match=r"refused \(round_incomplete\)"):
        call_command("gate", "--benchmark", "gi", "--round", "early", "--record")
    assert not GateEvaluation.objects.exists()


def test_the_attack_as_reported_fails_then_an_early_close_is_refused(world, researcher):
    """A judge failed a complete round; a new round is closed after a favourable start."""
    benchmark, experts = world
    failed_round = open_round(benchmark, experts, "full")
    rate(failed_round, experts, agreeing=2)
    assert record(researcher, "full").json()["passed"] is False
    attack = open_round(benchmark, experts, "attack")
    rate(attack, experts, agreeing=4, items=2)
    round_set_status(round_=attack, status=ReviewRound.Status.CLOSED)
    refused = record(researcher, "attack")
    assert refused.status_code == 409 and refused.json()["refusal"] == "round_incomplete"
    assert GateEvaluation.objects.count() == 1


def test_a_round_short_of_raters_per_item_is_refused_under_every_rule(world, researcher):
    benchmark, experts = world
    for rule in ("point", "sequential"):
        GatePolicy.objects.update_or_create(benchmark=benchmark, defaults={"rule": rule})
        name = f"one-{rule}"
        round_ = open_round(benchmark, experts[:1], name, raters_per_item=1)
        rate(round_, experts[:1], agreeing=4)
        refused = record(researcher, name)
        assert refused.status_code == 409 and refused.json()["refusal"] == "too_few_raters"
        assert "at least 3" in refused.json()["detail"]
    assert not GateEvaluation.objects.exists()


def test_a_failure_is_pooled_with_a_later_pass_under_a_fixed_rule(world, researcher, capsys):
    benchmark, experts = world
    GatePolicy.objects.create(benchmark=benchmark, threshold=0.8)
    rate(open_round(benchmark, experts, "A"), experts, agreeing=2)  # 50%
    assert record(researcher, "A").json()["passed"] is False
    rate(open_round(benchmark, experts, "B"), experts, agreeing=4)  # 100% alone
    body = record(researcher, "B").json()
    assert body["passed"] is False  # pooled: 0.75 < 0.8
    report_gate = body["report"]["gate"]
    assert report_gate["pooled_rounds"] == ["A", "B"] and report_gate["looks"] == 2
    assert report_gate["point"] == pytest.approx(0.75)
    assert body["report"]["percent_agreement"] == 1.0  # round B's own number is still shown
    call_command("gate", "--benchmark", "gi", "--round", "B", "--json")
    printed = json.loads(capsys.readouterr().out)
    assert [r["round"] for r in printed["history"]] == ["A", "B"]


def test_the_evidence_counts_a_round_nobody_recorded(world, researcher):
    """Not recording a failing round does not hide it."""
    benchmark, experts = world
    GatePolicy.objects.create(benchmark=benchmark, threshold=0.8)
    rate(open_round(benchmark, experts, "A"), experts, agreeing=1)
    rate(open_round(benchmark, experts, "B"), experts, agreeing=4)
    body = record(researcher, "B").json()
    assert body["passed"] is False and body["report"]["gate"]["pooled_rounds"] == ["A", "B"]


def test_the_sequential_wealth_continues_across_rounds(world, researcher):
    benchmark, experts = world
    GatePolicy.objects.create(benchmark=benchmark, rule="sequential")
    rate(open_round(benchmark, experts, "A"), experts, agreeing=0)
    first = record(researcher, "A").json()
    assert first["report"]["gate"]["decision"] == "fail"
    rate(open_round(benchmark, experts, "B"), experts, agreeing=4)
    second = record(researcher, "B").json()
    sequential = second["report"]["gate"]["sequential"]
    assert sequential["items_in_history"] == 2 * len(CASES)
    assert second["report"]["gate"]["decision"] == "fail" and second["passed"] is False


def test_a_later_failure_supersedes_the_published_board(world, researcher, coordinator):
    benchmark, experts = world
    rate(open_round(benchmark, experts, "A"), experts, agreeing=4)
    assert record(researcher, "A").json()["passed"] is True
    published = api(coordinator).post(
        reverse("api-leaderboards", args=["gi"]), {"judge": "judge"}, format="json"
    )
    assert published.status_code == 201, published.content
    snapshot = LeaderboardSnapshot.objects.get()
    listed = api(coordinator).get(reverse("api-leaderboards", args=["gi"])).json()
    assert listed[0]["superseded_by"] is None

    rate(open_round(benchmark, experts, "B"), experts, agreeing=0)
    failed = record(researcher, "B").json()
    assert failed["passed"] is False
    listed = api(coordinator).get(reverse("api-leaderboards", args=["gi"])).json()
    assert listed[0]["superseded_by"] == failed["id"]
    page = (
        client_for(coordinator)
        .get(reverse("leaderboard-snapshot", args=["gi", snapshot.pk]))
        .content.decode()
    )
    assert 'id="superseded"' in page and f"#{failed['id']}" in page
    board_list = client_for(coordinator).get(reverse("leaderboard", args=["gi"])).content.decode()
    assert "superseded" in board_list
    refused = api(coordinator).post(
        reverse("api-leaderboards", args=["gi"]), {"judge": "judge"}, format="json"
    )
    assert refused.status_code == 409 and refused.json()["refusal"] == "failed"


def test_a_rater_who_can_read_verdicts_makes_the_round_unusable(world, researcher):
    benchmark, experts = world
    insider = user_create_with_role(username="gi-coord", password="x-pass-123", role=COORDINATOR)
    insider.groups.add(Group.objects.get(name=EXPERT))
    raters = [*experts[:2], insider]
    rate(open_round(benchmark, raters, "inside"), raters, agreeing=4)
    refused = record(researcher, "inside")
    assert refused.status_code == 409 and refused.json()["refusal"] == "rater_reads_verdicts"
    assert not GateEvaluation.objects.exists()


def test_the_person_recording_must_not_have_rated(world, django_user_model):
    benchmark, experts = world
    rate(open_round(benchmark, experts, "self"), experts, agreeing=4)
    rater = experts[0]
    rater.user_permissions.add(
        Permission.objects.get(codename="record_gate"),
        Permission.objects.get(codename="view_benchmark"),
    )
    refused = record(django_user_model.objects.get(pk=rater.pk), "self")
    assert refused.status_code == 409 and refused.json()["refusal"] == "publisher_rated"


def test_units_short_of_raters_are_counted_and_left_out_by_default(world, capsys):
    benchmark, experts = world
    round_ = open_round(benchmark, experts, "short")
    rate(round_, experts[:2], agreeing=4, items=3)  # two votes at most per unit
    round_set_status(round_=round_, status=ReviewRound.Status.CLOSED)
    options = ("--benchmark", "gi", "--round", "short", "--judge", "judge")
    call_command("agreement_report", *options)
    report = json.loads(capsys.readouterr().out)
    by_raters = report["units_by_raters"]
    assert set(by_raters) <= {"0", "1", "2"} and by_raters.get("2", 0) > 0
    assert sum(by_raters.values()) == len(CASES) * 4
    assert report["min_raters"] == 3 and report["units"] == 0
    assert report["short_of_raters"] == by_raters["2"]  # two agreeing votes: a majority
    call_command("agreement_report", *options, "--min-raters", "1")
    kept = json.loads(capsys.readouterr().out)
    assert kept["units"] == report["short_of_raters"] and kept["short_of_raters"] == 0
    with pytest.raises(CommandError, match="--min-raters"):
        call_command("agreement_report", *options, "--min-raters", "0")


def test_publishing_on_the_page_asks_for_confirmation_and_the_badge_follows(
    world, researcher, coordinator
):
    benchmark, experts = world
    rate(open_round(benchmark, experts, "A"), experts, agreeing=4)
    record(researcher, "A")
    client = client_for(coordinator)
    run = JudgeRun.objects.get()
    page = client.get(reverse("leaderboard", args=["gi"]) + f"?run={run.pk}").content.decode()
    assert 'id="publish-confirm"' in page and 'id="unpublished"' in page
    url = reverse("leaderboard-publish", args=["gi"])
    unconfirmed = client.post(url, {"run": run.pk, "profile": "heartbench"}, follow=True)
    assert "tick the box to confirm" in unconfirmed.content.decode()
    assert not LeaderboardSnapshot.objects.exists()
    client.post(url, {"run": run.pk, "profile": "heartbench", "confirm": "yes"})
    snapshot = LeaderboardSnapshot.objects.get()
    page = client.get(reverse("leaderboard", args=["gi"]) + f"?run={run.pk}").content.decode()
    assert 'id="unpublished"' not in page and f"#{snapshot.pk}" in page
    published = client.get(reverse("leaderboard-snapshot", args=["gi", snapshot.pk]))
    assert "100.0%" in published.content.decode() and "1.000" not in published.content.decode()


def test_a_bias_condition_refuses_a_judge_surely_biased_with_a_system(
    world, researcher, coordinator
):
    benchmark, experts = world
    # The judge calls the catastrophic fourth criterion met where the experts do not: 75%
    # agreement passes, but its scores for the system are far below the experts'.
    rate(open_round(benchmark, experts, "A"), experts, agreeing=3)
    assert record(researcher, "A").json()["passed"] is True
    url = reverse("api-leaderboards", args=["gi"])
    GatePolicy.objects.update_or_create(benchmark=benchmark, defaults={"max_bias_points": 5.0})
    refused = api(coordinator).post(url, {"judge": "judge"}, format="json")
    assert refused.status_code == 409 and refused.json()["refusal"] == "judge_biased"
    assert "Sys" in refused.json()["detail"]
    GatePolicy.objects.filter(benchmark=benchmark).update(max_bias_points=None)
    assert api(coordinator).post(url, {"judge": "judge"}, format="json").status_code == 201


def test_the_gate_policy_page_sets_the_raters_and_the_bias_condition(world, coordinator):
    benchmark, _experts = world
    client = client_for(coordinator)
    form = {"rule": "point", "threshold_percent": "75", "min_raters": "4", "max_bias_points": "7.5"}
    client.post(reverse("gate-policy", args=["gi"]), form)
    policy = GatePolicy.objects.get(benchmark=benchmark)
    assert (policy.min_raters, policy.max_bias_points) == (4, 7.5)
    client.post(reverse("gate-policy", args=["gi"]), {**form, "max_bias_points": ""})
    assert GatePolicy.objects.get(benchmark=benchmark).max_bias_points is None


def test_a_chance_corrected_floor_is_part_of_the_gate(world, researcher):
    benchmark, experts = world
    rate(open_round(benchmark, experts, "A"), experts, agreeing=4)  # everything "met"
    # 100% agreement on one verdict only: kappa is undefined, AC1 is 1.
    GatePolicy.objects.create(benchmark=benchmark, chance_statistic="cohen_kappa", min_chance=0.6)
    kappa = record(researcher, "A").json()
    assert kappa["passed"] is False and kappa["report"]["percent_agreement"] == 1.0
    assert kappa["report"]["gate"]["chance"]["passed"] is False
    GatePolicy.objects.filter(benchmark=benchmark).update(chance_statistic="gwet_ac1")
    ac1 = record(researcher, "A").json()
    assert ac1["passed"] is True and ac1["report"]["gate"]["chance"]["value"] == 1.0


def test_the_bundle_carries_the_versions_gate_history_failures_included(
    world, researcher, coordinator, tmp_path
):
    import zipfile

    from leaderboard.exports.bundles.build import bundle_write
    from leaderboard.exports.bundles.verify import verify_bundle

    benchmark, experts = world
    GatePolicy.objects.create(benchmark=benchmark, threshold=0.75)
    rate(open_round(benchmark, experts, "A"), experts, agreeing=2)  # 50%: fails
    failed = record(researcher, "A").json()
    rate(open_round(benchmark, experts, "B"), experts, agreeing=4)
    rate(open_round(benchmark, experts, "C"), experts, agreeing=4)
    passed = record(researcher, "C").json()  # pooled 5/6 of units agree: passes
    assert failed["passed"] is False and passed["passed"] is True
    api(coordinator).post(reverse("api-leaderboards", args=["gi"]), {"judge": "judge"})
    path = tmp_path / "board.zip"
    with path.open("wb") as out:
        bundle_write(LeaderboardSnapshot.objects.get(), out)
    with zipfile.ZipFile(path) as bundle:
        board = json.loads(bundle.read("board.json"))
        names = bundle.namelist()
    assert board["evaluations"] == [passed["id"]] and board["gate_history"] == [failed["id"]]
    assert f"evaluations/{failed['id']}/report.json" in names
    result = verify_bundle(str(path))
    assert result.ok, result.as_dict()
