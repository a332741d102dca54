"""The calibration loop's leakage guard: a judge version derived from a round's calibration
part is judged on that round's held-out items only, by the gate (its evidence, its record,
the API and the command) and by judge selection; on a round that is all calibration, both
refuse with `calibration_leak`."""

import datetime as dt
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, Benchmark, Response, RubricVersion, System
from annotation.selectors.review import item_criteria
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeConfig, JudgeRun, JudgeTask, Verdict
from judging.services.judge_derive import DeriveRefused, judge_version_derive
from leaderboard.evidence.selectors.pick import agreement_evidence
from leaderboard.gate.services.evaluation import EvaluationRefused, gate_evaluate
from leaderboard.models import GateEvaluation
from leaderboard.selection.selectors.versions import judge_selection
from tests.conftest import client_for, jsonl_bytes, judge_config, lines, question

pytestmark = pytest.mark.django_db

CASES = 12  # two systems: 24 responses, 4 criteria each


def gold(response: int, criterion: int) -> bool:
    """The experts' (unanimous) verdict on a unit."""
    return (response * 7 + criterion * 3) % 5 != 0


def parent_verdict(response: int, criterion: int) -> bool:
    """The parent judge: wrong on about a third of the units."""
    right = (response + criterion) % 3 != 0
    return gold(response, criterion) if right else not gold(response, criterion)


@pytest.fixture
def bench(db):
    rows = [question(f"q{i:02d}") for i in range(1, CASES + 1)]
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb")
    for name in ("Alpha", "Beta"):
        answers = [
            {"question_id": f"q{i:02d}", "response": f"{name} 回答 {i}"}
            for i in range(1, CASES + 1)
        ]
        responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name=name)
    experts = [
        user_create_with_role(username=f"cal{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    return Benchmark.objects.get(slug="hb"), list(System.objects.order_by("name")), experts


def open_round(bench, name: str, share: float, *, vote: bool = True):
    benchmark, systems, experts = bench
    round_ = round_open(
        benchmark=benchmark,
        name=name,
        systems=systems,
        experts=experts,
        fraction=1.0,
        calibration_share=share,
    )
    for expert in experts if vote else ():
        while (a := assignment_next(expert=expert, round_=round_)) is not None:
            Assignment.objects.filter(pk=a.pk).update(assigned=a.assigned - dt.timedelta(hours=1))
            votes = [
                VoteInput(c.pk, gold(a.item.response_id, c.pk)) for c in item_criteria(assignment=a)
            ]
            assignment_submit(
                assignment=a, votes=votes, comment="", active_seconds=10, base_revision=0
            )
    return round_


def finished_run(version, benchmark, verdict) -> JudgeRun:
    """A finished run of `version` holding `verdict(response, criterion)` for every response
    of the benchmark, on each case's current rubric version (as a run stores it)."""
    run = JudgeRun.objects.create(
        benchmark=benchmark,
        judge_version=version,
        status=JudgeRun.Status.FINISHED,
        source=JudgeRun.Source.IMPORTED,
        finished=timezone.now(),
    )
    run.systems.set(System.objects.all())
    for response in Response.objects.filter(case__benchmark=benchmark).select_related("case"):
        rubric = RubricVersion.objects.filter(case=response.case).order_by("-number").first()
        task = JudgeTask.objects.create(
            run=run,
            case=response.case,
            system_id=response.system_id,
            response=response,
            rubric_version=rubric,
            status=JudgeTask.Status.DONE,
            finished=timezone.now(),
        )
        Verdict.objects.bulk_create(
            Verdict(task=task, criterion=c, hit=verdict(response.pk, c.pk))
            for c in rubric.criteria.all()
        )
    return run


def parent_version():
    return judge_config(name="J", model="J", source="imported").current_version


def derive(parent, round_, temperature: float, note: str = "few-shot examples from R"):
    return judge_version_derive(parent=parent, round_=round_, note=note, temperature=temperature)


def evidence(round_, run):
    return agreement_evidence(
        benchmark=round_.benchmark, round_ref=str(round_.pk), run_ref=str(run.pk)
    )


def test_a_derived_version_is_judged_on_the_held_out_items_only(bench):
    benchmark = bench[0]
    round_ = open_round(bench, "R", 0.5)
    parent = parent_version()
    parent_run = finished_run(parent, benchmark, parent_verdict)
    derived = derive(parent, round_, 0.3)
    assert (derived.parent, derived.derived_from_round) == (parent, round_)
    derived_run = finished_run(derived, benchmark, gold)

    whole = evidence(round_, parent_run).report
    assert whole.units == 96 and "calibration" not in whole.excluded.as_json()

    report = evidence(round_, derived_run).report
    # Twelve of the 24 responses are calibration items: their 48 units are left out.
    assert report.units == 48
    assert report.excluded.calibration == 48
    assert report.calibration == {
        "derived_from_round": "R",
        "calibration_items": 12,
        "held_out_items": 12,
        "excluded_units": 48,
        "refusal": None,
    }
    recorded = gate_evaluate(evidence=evidence(round_, derived_run))
    assert recorded.units == 48 and recorded.report["excluded"]["calibration"] == 48

    selection = judge_selection(round_=round_, resamples=100)
    rows = {row["label"]: row for row in selection["judges"]}
    assert rows["J v2"]["units"] == 48 and rows["J v2"]["excluded"] == {"calibration": 48}
    assert rows["J v1"]["units"] == 96 and "excluded" not in rows["J v1"]


def test_a_derived_version_on_a_round_of_calibration_items_only_is_refused(bench, researcher):
    benchmark = bench[0]
    everything = open_round(bench, "all calibration", 1.0, vote=False)
    parent = parent_version()
    finished_run(parent, benchmark, parent_verdict)
    derived = derive(parent, everything, 0.3)
    run = finished_run(derived, benchmark, gold)

    found = evidence(everything, run)
    assert found.report.units == 0
    assert found.report.excluded.calibration == 96
    assert found.report.gate["passed"] is False
    assert found.report.gate["refusal"] == "calibration_leak"
    with pytest.raises(EvaluationRefused, match="calibration part") as refused:
        gate_evaluate(evidence=found)
    assert refused.value.code == "calibration_leak"
    assert not GateEvaluation.objects.exists()

    api = APIClient()
    api.force_authenticate(researcher)
    answer = api.post(
        reverse("api-gate-evaluations", args=["hb"]),
        {"round": "all calibration", "run": str(run.pk)},
        format="json",
    )
    assert answer.status_code == 409, answer.content
    assert answer.json()["refusal"] == "calibration_leak"

    with pytest.raises(CommandError, match=r"refused \(calibration_leak\)"):
        call_command(
            "gate",
            "--benchmark=hb",
            "--round=all calibration",
            f"--judge-run={run.pk}",
            "--record",
            stdout=StringIO(),
        )
    out = StringIO()
    call_command(
        "gate",
        "--benchmark=hb",
        "--round=all calibration",
        f"--judge-run={run.pk}",
        "--json",
        stdout=out,
    )
    assert json.loads(out.getvalue())["refusal"] == "calibration_leak"
    assert not GateEvaluation.objects.exists()

    selection = judge_selection(round_=everything, resamples=100)
    rows = {row["label"]: row for row in selection["judges"]}
    assert rows["J v2"]["gate"] == {
        "passed": False,
        "rule_passed": False,
        "on_frozen_rubrics": True,
        "refusal": "calibration_leak",
    }
    assert selection["cheapest_passing"]["label"] != "J v2"
    [entry] = selection["calibration_to_held_out"]
    assert entry["derived"] == "J v2" and entry["reason"] == "calibration_leak"
    assert entry["verdict"] is None and entry["comparison"] is None


def test_deriving_needs_a_split_round_a_note_and_a_change(bench):
    plain = open_round(bench, "plain", 0.0, vote=False)
    split = open_round(bench, "split", 0.25, vote=False)
    parent = parent_version()
    with pytest.raises(DeriveRefused, match="no calibration part"):
        derive(parent, plain, 0.3)
    with pytest.raises(DeriveRefused, match="note"):
        derive(parent, split, 0.3, note="  ")
    with pytest.raises(DeriveRefused, match="already J v1"):
        judge_version_derive(parent=parent, round_=split, note="nothing changed")
    assert JudgeConfig.objects.get(name="J").versions.count() == 1


def test_the_command_derives_and_the_config_page_shows_the_origin(bench, coordinator):
    split = open_round(bench, "split", 0.25, vote=False)
    parent_version()
    out = StringIO()
    call_command(
        "judge_derive",
        "--judge=J",
        "--from-round=split",
        "--temperature=0.4",
        "--note=clarified criterion 2",
        "--json",
        stdout=out,
    )
    record = json.loads(out.getvalue())
    assert record == {
        "judge_version": "J v2",
        "number": 2,
        "parent": "J v1",
        "derived_from_round": "split",
        "note": "clarified criterion 2",
    }
    config = JudgeConfig.objects.get(name="J")
    assert config.current_version.derived_from_round == split
    with pytest.raises(CommandError, match="no review round"):
        call_command("judge_derive", "--judge=J", "--from-round=nope", "--note=x")
    page = client_for(coordinator).get(reverse("judge-config", args=[config.pk]))
    assert "derived from version 1 on the calibration part of the round split" in (
        page.content.decode()
    )
    zh = client_for(coordinator).get(
        reverse("judge-config", args=[config.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert zh.status_code == 200


def test_the_round_a_version_came_from_counts_by_its_held_out_part_in_later_gates(bench):
    benchmark = bench[0]
    origin = open_round(bench, "R", 0.5)
    later = open_round(bench, "R2", 0.0)
    derived = derive(parent_version(), origin, 0.3)
    run = finished_run(derived, benchmark, gold)
    rounds = evidence(later, run).report.gate["rounds"]
    assert [each["round"] for each in rounds] == ["R", "R2"]
    # R's twelve calibration items are not in the version's history; R2 has no split.
    assert [each["items"] for each in rounds] == [12, 24]


def test_the_bundle_of_a_board_carries_the_split_of_its_round(bench, coordinator):
    from leaderboard.boards.selectors.runs import board_runs
    from leaderboard.exports.bundles.build import bundle_files
    from leaderboard.exports.bundles.layout import EVALUATION, EVALUATION_DIR
    from leaderboard.gate.services.evaluation import leaderboard_publish

    benchmark = bench[0]
    round_ = open_round(bench, "R", 0.5)
    run = finished_run(derive(parent_version(), round_, 0.3), benchmark, gold)
    evaluation = gate_evaluate(evidence=evidence(round_, run), user=coordinator)
    assert evaluation.passed
    snapshot = leaderboard_publish(
        board=board_runs(benchmark=benchmark, runs=[run.pk]), profile="heartbench", user=coordinator
    )
    files = bundle_files(snapshot)
    record = json.loads(files[EVALUATION_DIR.format(id=evaluation.pk) + EVALUATION])
    calibration = sorted(
        round_.items.filter(part="calibration").values_list("response_id", flat=True)
    )
    assert record["split"] == {
        "calibration_share": 0.5,
        "split_seed": round_.seed,
        "calibration_items": 12,
        "held_out_items": 12,
        "calibration_responses": calibration,
    }


def test_the_agreement_page_says_what_was_left_out(bench, researcher):
    benchmark = bench[0]
    round_ = open_round(bench, "R", 0.5)
    run = finished_run(derive(parent_version(), round_, 0.3), benchmark, gold)
    url = reverse("agreement", args=["hb"]) + f"?round={round_.pk}&run={run.pk}"
    page = client_for(researcher).get(url).content.decode()
    assert 'id="excluded-calibration"' in page
    assert "the 48 units of its 12 calibration items are left out" in page
    zh = client_for(researcher).get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert zh.status_code == 200 and 'id="excluded-calibration"' in zh.content.decode()
