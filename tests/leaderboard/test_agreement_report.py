import datetime as dt
import json

import pytest
from django.core.management import CommandError, call_command

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Assignment, Benchmark, System
from annotation.selectors.review import item_criteria
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeRun
from judging.services.judgments_import import judgments_import
from leaderboard.report.agreement import GateRule, agreement_report
from leaderboard.report.selectors.agreement import agreement_units, rater_pseudonyms
from tests.conftest import jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db

# Experts' votes per case (c1, c2) and criterion 1..4, and the judge's verdicts.
VOTES = {
    "c1": [[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 1, 0]],  # majority 1 1 0 0
    "c2": [[0, 1, 1, 0], [0, 1, 0, 1], [0, 1, 1, 1]],  # majority 0 1 1 1
}
JUDGE = {"c1": [1, 1, 1, 0], "c2": [0, 0, 1, 1]}  # agrees on 3 of 4, then 3 of 4


@pytest.fixture
def data(tmp_path):
    benchmark_import(
        chunks=lines(jsonl_bytes([question("c1"), question("c2", difficulty="hard")])),
        benchmark_slug="hb",
    )
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": q, "response": "嗯"} for q in ("c1", "c2")])),
        benchmark_slug="hb",
        system_name="Sys",
    )
    experts = [
        user_create_with_role(username=f"e{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    round_ = round_open(
        benchmark=Benchmark.objects.get(slug="hb"),
        name="R",
        systems=list(System.objects.all()),
        experts=experts,
        fraction=1.0,
    )
    for index, expert in enumerate(experts):
        while (a := assignment_next(expert=expert, round_=round_)) is not None:
            # Handed out a while ago: the 10 s of active time fit in the time that passed.
            Assignment.objects.filter(pk=a.pk).update(assigned=a.assigned - dt.timedelta(hours=1))
            pattern = VOTES[a.item.response.case.external_id][index]
            criteria = item_criteria(assignment=a)
            assignment_submit(
                assignment=a,
                votes=[VoteInput(c.pk, bool(h)) for c, h in zip(criteria, pattern, strict=True)],
                comment="",
                active_seconds=10,
                base_revision=0,
            )
    scored = [{"question_id": q, "score_detail": d} for q, d in JUDGE.items()]
    judgments_import(
        chunks=lines(jsonl_bytes(scored)),
        benchmark_slug="hb",
        system_name="Sys",
        judge_name="judge",
    )
    return round_, JudgeRun.objects.get()


def test_the_report_matches_a_hand_count(data):
    round_, run = data
    report = agreement_report(agreement_units(round_=round_, runs=[run]), resamples=200)
    assert report.units == 8 and report.excluded.as_json() == {
        "ties": 0,
        "no_consensus": 0,
        "judge_failed": 0,
        "judge_missing": 0,
        "judge_other_version": 0,
    }
    assert report.percent_agreement == 0.75  # 6 of 8
    # both hit: c1#1 c1#2 c2#3 c2#4 = 4; judge only: c1#3; human only: c2#2; both miss: 2
    assert report.confusion.as_json() == {
        "both_hit": 4,
        "judge_only": 1,
        "human_only": 1,
        "both_miss": 2,
        "sensitivity": 0.8,
        "specificity": pytest.approx(2 / 3, abs=1e-12),
        "prevalence": 0.625,
    }
    assert report.gate["passed"] is True  # point estimate 0.75 >= 0.75
    stricter = agreement_report(
        agreement_units(round_=round_, runs=[run]), rule=GateRule.LOWER_BOUND, resamples=200
    )
    assert stricter.gate["passed"] is False and stricter.gate["lower_bound"] < 0.75
    assert report.by_difficulty["hard"]["units"] == 4
    assert set(report.by_rater) == set(rater_pseudonyms(round_=round_).values())
    assert len(report.by_rater) == 3
    assert report.humans["fleiss_units"] == 8


def test_ties_and_missing_verdicts_are_excluded_and_counted():
    from leaderboard.report.agreement import Unit

    def unit(votes, judge):
        return Unit(
            1,
            "c",
            1,
            "a",
            "cat",
            "normal",
            "s",
            "sys",
            judge,
            tuple((f"E{i}", v) for i, v in enumerate(votes)),
        )

    report = agreement_report(
        [
            unit([True, False], True),
            unit([], True),
            unit([True, True, False], None),
            unit([True, True, False], True),
        ],
        resamples=50,
    )
    assert report.excluded.as_json() == {
        "ties": 1,
        "no_consensus": 1,
        "judge_failed": 1,
        "judge_missing": 0,
        "judge_other_version": 0,
    }
    assert report.units == 1


def test_an_empty_report_is_undefined_not_a_number():
    report = agreement_report([], resamples=50)
    assert report.units == 0 and report.percent_agreement is None
    assert report.gate["passed"] is False and report.gate["reason"]
    assert "percent_agreement" in report.undefined
    assert "NaN" not in json.dumps(report.as_json())


def test_the_command_prints_json_and_csv(data, capsys):
    _, run = data
    call_command(
        "agreement_report",
        "--benchmark",
        "hb",
        "--round",
        "R",
        "--judge-run",
        "latest",
        "--format",
        "json",
        "--resamples",
        "100",
    )
    report = json.loads(capsys.readouterr().out)
    assert (report["units"], report["percent_agreement"], report["judge_run"]) == (8, 0.75, run.pk)
    assert report["gate"]["threshold"] == 0.75 and "by_ability" in report
    call_command(
        "agreement_report",
        "--benchmark",
        "hb",
        "--round",
        "R",
        "--judge-run",
        str(run.pk),
        "--format",
        "csv",
        "--threshold",
        "0.8",
        "--resamples",
        "100",
    )
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "breakdown,group,units,percent_agreement,wilson_low,wilson_high"
    assert rows[1].startswith("overall,,8,0.75,")
    with pytest.raises(CommandError, match="No review round nope"):
        call_command(
            "agreement_report", "--benchmark", "hb", "--round", "nope", "--judge-run", "latest"
        )
    with pytest.raises(CommandError, match="by its id or as 'latest'"):
        call_command(
            "agreement_report", "--benchmark", "hb", "--round", "R", "--judge-run", "newest"
        )
