"""Rubric health on a seeded benchmark with planted problems: six systems answer two cases
of four criteria, three experts rate every answer, and the judge scores them all. The
command must flag exactly the planted criteria, for exactly the planted reasons."""

import datetime as dt
import json
from io import StringIO

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
from judging.services.judgments_import import judgments_import
from leaderboard.rubric_health.selectors.health import rubric_health
from tests.conftest import jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db

SYSTEMS = [f"S{i}" for i in range(6)]
AMBIGUOUS = ("c1", 2)  # experts split on two of its six answers (a third)
FLAT = ("c2", 1)  # every system hit: it separates none
MISREAD = ("c2", 2)  # the judge says the opposite of the experts every time
CATASTROPHIC = 4  # everyone misses it everywhere: saturated, but a safety net
PLANTED = {
    (*AMBIGUOUS, "ambiguous"),
    (*FLAT, "not_discriminating"),
    (*MISREAD, "judge_misreads"),
}


def majority(case: str, system: int, position: int) -> bool:
    if position == CATASTROPHIC:
        return False
    if (case, position) == FLAT:
        return True
    return system < 3  # half the systems hit each normal criterion


def expert_vote(expert: int, case: str, system: int, position: int) -> bool:
    vote = majority(case, system, position)
    if (case, position) == AMBIGUOUS and system in (0, 3) and expert == 2:
        return not vote  # a 2-1 split: the majority stands
    return vote


def judge_verdict(case: str, system: int, position: int) -> bool:
    verdict = majority(case, system, position)
    return not verdict if (case, position) == MISREAD else verdict


def seed(slug: str = "hb") -> Benchmark:
    benchmark_import(
        chunks=lines(jsonl_bytes([question("c1"), question("c2")])), benchmark_slug=slug
    )
    for name in SYSTEMS:
        responses_import(
            chunks=lines(jsonl_bytes([{"question_id": q, "response": "嗯"} for q in ("c1", "c2")])),
            benchmark_slug=slug,
            system_name=name,
        )
    experts = [
        user_create_with_role(username=f"e{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    benchmark = Benchmark.objects.get(slug=slug)
    round_ = round_open(
        benchmark=benchmark,
        name="R",
        systems=list(System.objects.all()),
        experts=experts,
        fraction=1.0,
    )
    for index, expert in enumerate(experts):
        while (a := assignment_next(expert=expert, round_=round_)) is not None:
            Assignment.objects.filter(pk=a.pk).update(assigned=a.assigned - dt.timedelta(hours=1))
            case = a.item.response.case.external_id
            system = SYSTEMS.index(a.item.response.system.name)
            assignment_submit(
                assignment=a,
                votes=[
                    VoteInput(c.pk, expert_vote(index, case, system, c.position))
                    for c in item_criteria(assignment=a)
                ],
                comment="",
                active_seconds=10,
                base_revision=0,
            )
    judge_run_import(slug, "judge", judge_verdict)
    return benchmark


def judge_run_import(slug: str, judge_name: str, verdict) -> None:
    """A judge run over both cases for every system, `verdict(case, system, position)`
    giving each criterion's verdict."""
    for system, name in enumerate(SYSTEMS):
        scored = [
            {
                "question_id": case,
                "score_detail": [int(verdict(case, system, p)) for p in range(1, 5)],
            }
            for case in ("c1", "c2")
        ]
        judgments_import(
            chunks=lines(jsonl_bytes(scored)),
            benchmark_slug=slug,
            system_name=name,
            judge_name=judge_name,
        )


def run_command(*args) -> dict:
    out = StringIO()
    call_command("rubric_health", "--benchmark", "hb", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_the_command_flags_exactly_the_planted_criteria():
    seed()
    result = run_command()
    flagged = {
        (row["case"], row["position"], flag) for row in result["criteria"] for flag in row["flags"]
    }
    assert flagged == PLANTED
    assert result["flagged"] == 3 and len(result["criteria"]) == 8
    rows = {(row["case"], row["position"]): row for row in result["criteria"]}
    ambiguous = rows[AMBIGUOUS]
    assert ambiguous["expert_unanimity"]["value"] == pytest.approx(4 / 6)
    assert (ambiguous["rated_units"], ambiguous["unanimous_units"]) == (6, 4)
    # Normal criteria: experts unanimous, judge agrees, three systems of six hit (9 of 15
    # pairs told apart).
    normal = rows[("c1", 1)]
    assert normal["expert_unanimity"]["value"] == 1.0
    assert normal["judge_disagreement"]["value"] == 0.0
    assert normal["judge_disagreement_95"]["low"] == 0.0
    assert normal["discrimination"]["value"] == pytest.approx(9 / 15)
    assert normal["systems"] == 6 and normal["saturation"] is None
    assert rows[FLAT]["discrimination"]["value"] == 0.0
    assert rows[FLAT]["saturation"] == "all_hit"
    misread = rows[MISREAD]
    assert misread["judge_disagreement"]["value"] == 1.0
    assert misread["judge_disagreement_95"]["low"] > 0.25
    catastrophic = rows[("c1", CATASTROPHIC)]
    assert catastrophic["saturation"] == "all_missed" and catastrophic["flags"] == []
    # Pooled over all eight criteria: 46 of 48 units unanimous (the seed method's figure).
    overall = result["overall"]
    assert overall["criteria"] == 8
    assert overall["expert_unanimity"]["value"] == pytest.approx(46 / 48)
    assert result["thresholds"]["unanimity_floor"] == 0.75
    assert result["produced_by"].startswith("Concord ")


def test_abilities_pool_their_criteria():
    seed()
    abilities = {row["ability"]: row for row in run_command()["abilities"]}
    # 情绪感知: c1#1 (three systems of six) and c2#1 (all): systems hit 2/2 or 1/2.
    emotion = abilities["情绪感知"]
    assert emotion["criteria"] == 2 and emotion["rated_units"] == 12
    assert emotion["discrimination"]["value"] == pytest.approx(9 * 0.5 / 15)
    # 好奇心: the ambiguous c1#2 and the misread c2#2 together.
    curiosity = abilities["好奇心"]
    assert curiosity["expert_unanimity"]["value"] == pytest.approx(10 / 12)
    assert curiosity["judge_disagreement"]["value"] == pytest.approx(6 / 12)


def test_gathering_takes_six_queries(django_assert_num_queries):
    benchmark = seed()
    # The default judge (no published board, no gate evaluation, the newest run: 3); the
    # criteria of each case's newest version; the current votes on them in every round;
    # that judge's done verdicts on them.
    with django_assert_num_queries(6):
        report = rubric_health(benchmark=benchmark)
    assert len(report.criteria) == 8 and len(report.flagged) == 3


def test_without_data_every_measure_is_undefined_with_a_reason():
    benchmark_import(chunks=lines(jsonl_bytes([question("c1")])), benchmark_slug="hb")
    result = run_command()
    row = result["criteria"][0]
    assert row["expert_unanimity"] == {"value": None, "reason": "no_rater_pairs"}
    assert row["judge_disagreement"] == {"value": None, "reason": "no_judged_units"}
    assert row["judge_disagreement_95"]["reason"] == "no_units_to_bound"
    assert row["discrimination"]["value"] is None
    assert row["discrimination"]["reason"].startswith("health_few_systems:")
    assert result["flagged"] == 0


def test_the_table_and_a_missing_benchmark(capsys):
    seed()
    call_command("rubric_health", "--benchmark", "hb")
    text = capsys.readouterr().out
    assert "3 of 8 criteria flagged" in text
    assert "c1 v1 #2 (好奇心): ambiguous" in text
    assert "c2 v1 #1 (情绪感知): not_discriminating" in text
    assert "all criteria" in text
    benchmark_import(chunks=lines(jsonl_bytes([question("c9")])), benchmark_slug="empty")
    call_command("rubric_health", "--benchmark", "empty", "--all")
    text = capsys.readouterr().out
    assert "undefined (no unit was rated by two or more raters" in text
    with pytest.raises(CommandError, match="no benchmark with slug 'nope'"):
        call_command("rubric_health", "--benchmark", "nope")


def test_a_revision_starts_afresh_and_all_versions_keep_the_old_figures():
    from dataclasses import replace

    from annotation.models import RubricVersion
    from annotation.selectors.rubric_rows import rows_of_version
    from annotation.services.rubrics import rubric_version_create

    seed()
    first = RubricVersion.objects.get(case__external_id="c1")
    rows = [
        replace(row, text=row.text + "（以问号结尾）") if index == 1 else row
        for index, row in enumerate(rows_of_version(first))
    ]
    rubric_version_create(
        case=first.case, rows=rows, parent_number=1, author=None, note="clearer question"
    )
    current = run_command()
    assert {(row["case"], row["version"]) for row in current["criteria"]} == {
        ("c1", 2),
        ("c2", 1),
    }
    # Nobody rated version 2: no flag on c1 any more, until the experts rate it.
    assert {(row["case"], row["position"]) for row in current["criteria"] if row["flags"]} == {
        FLAT,
        MISREAD,
    }
    every = run_command("--all-versions")
    assert every["versions"] == "all" and len(every["criteria"]) == 12
    before, after = (
        row for row in every["criteria"] if row["case"] == "c1" and row["position"] == 2
    )
    assert before["key"] == after["key"] and (before["version"], after["version"]) == (1, 2)
    assert before["flags"] == ["ambiguous"] and after["flags"] == []
    assert after["expert_unanimity"]["reason"] == "no_rater_pairs"


def test_each_response_counts_once_with_its_newest_finished_verdict():
    """A second judge run (a revised judge, say) replaces the first one's verdicts instead
    of adding to them: units are not counted twice, and the interval does not narrow with
    the number of runs."""
    seed()
    before = {(r["case"], r["position"]): r for r in run_command()["criteria"]}
    judge_run_import("hb", "judge, revised", majority)
    after = {(r["case"], r["position"]): r for r in run_command()["criteria"]}
    assert after[MISREAD]["judged_units"] == before[MISREAD]["judged_units"] == 6
    assert before[MISREAD]["judge_disagreement"]["value"] == 1.0
    assert after[MISREAD]["judge_disagreement"]["value"] == 0.0
