"""The agreement report on a round sampled more where the judge is unsure: every unit
weighted by the inverse of its response's recorded chance (the Hájek share), the sequential
test weighted by the items' chances (and deciding, once enough items agree); with equal
chances, today's numbers."""

import json

import pytest
from django.core.management import call_command

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, Benchmark, Response, ReviewItem, System
from annotation.selectors.review import item_criteria
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeRun, Verdict
from judging.services.judgments_import import judgments_import
from judging.services.uncertain_rounds import uncertain_round_open
from leaderboard.models import GatePolicy
from leaderboard.stats.reasons import SEQUENTIAL_UNEQUAL_CHANCES
from tests.conftest import jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db

CASES = [f"c{i}" for i in range(1, 9)]
JUDGE = [1, 1, 1, 0]
# The second judge differs from the first on 0 to 3 criteria.
OTHER = {q: [1 - h if k < i % 4 else h for k, h in enumerate(JUDGE)] for i, q in enumerate(CASES)}
VOTES = {q: [1, 0, 1, 0] if i % 3 else [1, 1, 1, 0] for i, q in enumerate(CASES)}


def _import(judge: str, verdicts: dict) -> JudgeRun:
    rows = [{"question_id": q, "score_detail": d} for q, d in verdicts.items()]
    judgments_import(
        chunks=lines(jsonl_bytes(rows)), benchmark_slug="hb", system_name="Sys", judge_name=judge
    )
    return JudgeRun.objects.latest("pk")


@pytest.fixture
def runs():
    benchmark_import(chunks=lines(jsonl_bytes([question(q) for q in CASES])), benchmark_slug="hb")
    answers = [{"question_id": q, "response": "嗯"} for q in CASES]
    responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name="Sys")
    judge = _import("judge", dict.fromkeys(CASES, JUDGE))
    return judge, _import("other", OTHER), _import("twin", dict.fromkeys(CASES, JUDGE))


def _voted_round(name: str, run: JudgeRun, second: JudgeRun, seed: int):
    expert = user_create_with_role(username=f"e-{name}", password="x-pass-123", role=EXPERT)
    round_ = uncertain_round_open(
        benchmark=Benchmark.objects.get(slug="hb"),
        systems=list(System.objects.all()),
        run=run,
        second=second,
        fraction=0.5,
        name=name,
        experts=[expert],
        raters_per_item=1,
        seed=seed,
    )
    while (a := assignment_next(expert=expert, round_=round_)) is not None:
        pattern = VOTES[a.item.response.case.external_id]
        criteria = item_criteria(assignment=a)
        Assignment.objects.filter(pk=a.pk).update(assigned=a.assigned.replace(year=2000))
        assignment_submit(
            assignment=a,
            votes=[VoteInput(c.pk, bool(h)) for c, h in zip(criteria, pattern, strict=True)],
            comment="",
            active_seconds=10,
            base_revision=0,
        )
    return round_


def _report(round_name: str, run: JudgeRun, capsys) -> dict:
    call_command(
        "agreement_report", "--benchmark", "hb", "--round", round_name,
        "--judge-run", str(run.pk), "--json", "--resamples", "50",
    )  # fmt: skip
    return json.loads(capsys.readouterr().out)


def test_the_report_weights_each_unit_by_its_inverse_chance(runs, capsys):
    judge, other, _twin = runs
    round_ = _voted_round("U", judge, other, seed=5)
    chance = dict(round_.items.values_list("response_id", "inclusion_probability"))
    assert len(set(chance.values())) > 1, "the draw should hold unequal chances"
    verdict = {
        (response, criterion): hit
        for response, criterion, hit in Verdict.objects.filter(task__run=judge).values_list(
            "task__response_id", "criterion_id", "hit"
        )
    }
    weighted = total = agree_plain = units = 0.0
    for item in ReviewItem.objects.filter(round=round_).select_related("response__case"):
        pattern = VOTES[item.response.case.external_id]
        criteria = item.rubric_version.criteria.order_by("position")
        for criterion, vote in zip(criteria, pattern, strict=True):
            agrees = verdict[(item.response_id, criterion.pk)] == bool(vote)
            weighted += agrees / chance[item.response_id]
            total += 1 / chance[item.response_id]
            agree_plain += agrees
            units += 1
    report = _report("U", judge, capsys)
    assert report["sampling"]["design"] == "uncertainty"
    assert report["sampling"]["weights_applied"] is True
    assert report["percent_agreement"] == pytest.approx(weighted / total, abs=1e-12)
    assert report["sampling"]["percent_agreement_unweighted"] == pytest.approx(agree_plain / units)
    assert report["percent_agreement"] != pytest.approx(agree_plain / units)
    assert report["sequential"]["decision"] is not None
    assert report["sequential"]["weighted"] is True
    assert report["sequential"]["least_chance"] == min(chance.values())


def test_equal_chances_give_todays_numbers(runs, capsys):
    judge, _other, twin = runs
    # Two judges that never disagree: no response is less sure than another.
    round_ = _voted_round("Even", judge, twin, seed=5)
    assert set(round_.items.values_list("inclusion_probability", flat=True)) == {0.5}
    report = _report("Even", judge, capsys)
    assert report["sampling"]["design"] == "uncertainty"
    assert report["percent_agreement"] == report["sampling"]["percent_agreement_unweighted"]
    assert report["sequential"].get("reason") != SEQUENTIAL_UNEQUAL_CHANCES
    assert "weighted" not in report["sequential"]


def test_the_corrected_inputs_carry_every_responses_chance(runs):
    from leaderboard.boards.selectors.runs import board_runs
    from leaderboard.corrected.inputs import corrected_inputs

    judge, other, _twin = runs
    round_ = _voted_round("U", judge, other, seed=5)
    board = board_runs(benchmark=round_.benchmark, runs=[judge.pk])
    inputs = corrected_inputs(board=board, round_=round_)
    pairs = inputs.pairs["Sys"]
    # Drawn or not, every judged response has the chance the round kept for it.
    response = {
        case: pk
        for pk, case in Response.objects.filter(system__name="Sys").values_list(
            "pk", "case__external_id"
        )
    }
    assert len(pairs) == len(CASES)
    for pair in pairs:
        assert pair.probability == round_.design_chances[str(response[pair.judge.case_id])]
    assert len({pair.probability for pair in pairs}) > 1
    assert any(pair.experts is None for pair in pairs)


def test_the_weighted_sequential_test_decides_a_round_drawn_where_the_judge_is_unsure(capsys):
    """Sixty cases, the second judge differing on 0 to 3 criteria; the experts agree with
    the first judge on every criterion, and the gate's rule is the sequential test."""
    many = [f"m{i}" for i in range(60)]
    benchmark_import(chunks=lines(jsonl_bytes([question(q) for q in many])), benchmark_slug="hb")
    answers = [{"question_id": q, "response": "嗯"} for q in many]
    responses_import(chunks=lines(jsonl_bytes(answers)), benchmark_slug="hb", system_name="Sys")
    judge = _import("judge", dict.fromkeys(many, JUDGE))
    # The second judge differs from the first on 0 to 3 criteria.
    second = {
        q: [1 - h if k < i % 4 else h for k, h in enumerate(JUDGE)] for i, q in enumerate(many)
    }
    other = _import("other", second)
    benchmark = Benchmark.objects.get(slug="hb")
    GatePolicy.objects.create(benchmark=benchmark, rule="sequential", threshold=0.75, min_raters=1)
    expert = user_create_with_role(username="e-many", password="x-pass-123", role=EXPERT)
    round_ = uncertain_round_open(
        benchmark=benchmark,
        systems=list(System.objects.all()),
        run=judge,
        second=other,
        fraction=0.6,
        name="Many",
        experts=[expert],
        raters_per_item=1,
        seed=7,
    )
    while (a := assignment_next(expert=expert, round_=round_)) is not None:
        Assignment.objects.filter(pk=a.pk).update(assigned=a.assigned.replace(year=2000))
        criteria = item_criteria(assignment=a)
        assignment_submit(
            assignment=a,
            votes=[VoteInput(c.pk, bool(h)) for c, h in zip(criteria, JUDGE, strict=True)],
            comment="",
            active_seconds=10,
            base_revision=0,
        )
    chances = list(round_.items.values_list("inclusion_probability", flat=True))
    assert len(set(chances)) > 1
    report = _report("Many", judge, capsys)
    sequential = report["sequential"]
    assert sequential["weighted"] is True and "reason" not in sequential
    assert sequential["decision"] == "pass"
    assert sequential["decided_at"] < sequential["items_total"] == len(chances)
    gate = report["gate"]
    assert gate["refusal"] is None and gate["passed"] is True
    assert gate["decision"] == "pass" and gate["sequential"]["weighted"] is True
