"""`judge_panel`: can a judge replace an expert? Three experts rate every response of a
round (four criteria each), each misreading a criterion now and then; a judge that copies
their majority passes the Alternative Annotator Test, a judge that agrees with it on 60%
of the units fails, and a round with too few responses per expert says so."""

import datetime as dt
import json
import random
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
from tests.conftest import jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db

SYSTEMS = ("S0", "S1", "S2")
POSITIONS = (1, 2, 3, 4)
EXPERT_SLIPS = 0.12


def truth(case: str, system: int, position: int) -> bool:
    return random.Random(f"truth-{case}-{system}-{position}").random() < 0.5


def expert_vote(expert: int, case: str, system: int, position: int) -> bool:
    slip = random.Random(f"slip-{expert}-{case}-{system}-{position}").random() < EXPERT_SLIPS
    return truth(case, system, position) != slip


def majority(case: str, system: int, position: int) -> bool:
    return sum(expert_vote(e, case, system, position) for e in range(3)) >= 2


def copies_majority(case: str, system: int, position: int) -> bool:
    return majority(case, system, position)


def agrees_60(case: str, system: int, position: int) -> bool:
    """Agrees with the majority on three units of every five in a row: 60%."""
    unit = (int(case[1:]) * len(SYSTEMS) + system) * len(POSITIONS) + position - 1
    return majority(case, system, position) == (unit % 5 < 3)


def seed(*, cases: int, experts: int = 3, slug: str = "hb") -> list[str]:
    """A benchmark of `cases` cases answered by three systems, one round in which the
    experts rate every response; returns the case ids."""
    ids = [f"c{i}" for i in range(cases)]
    benchmark_import(chunks=lines(jsonl_bytes([question(q) for q in ids])), benchmark_slug=slug)
    for name in SYSTEMS:
        responses_import(
            chunks=lines(jsonl_bytes([{"question_id": q, "response": "嗯"} for q in ids])),
            benchmark_slug=slug,
            system_name=name,
        )
    people = [
        user_create_with_role(username=f"e{i}", password="x-pass-123", role=EXPERT)
        for i in range(experts)
    ]
    round_ = round_open(
        benchmark=Benchmark.objects.get(slug=slug),
        name="R",
        systems=list(System.objects.all()),
        experts=people,
        fraction=1.0,
        raters_per_item=experts,
    )
    for index, person in enumerate(people):
        while (a := assignment_next(expert=person, round_=round_)) is not None:
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
    return ids


def judge_import(ids: list[str], judge_name: str, verdict, slug: str = "hb") -> None:
    for system, name in enumerate(SYSTEMS):
        judgments_import(
            chunks=lines(
                jsonl_bytes(
                    [
                        {
                            "question_id": case,
                            "score_detail": [int(verdict(case, system, p)) for p in POSITIONS],
                        }
                        for case in ids
                    ]
                )
            ),
            benchmark_slug=slug,
            system_name=name,
            judge_name=judge_name,
        )


def panel(*args) -> dict:
    out = StringIO()
    call_command("judge_panel", "--benchmark", "hb", "--round", "R", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_a_judge_that_copies_the_majority_passes_and_one_at_60_percent_fails():
    ids = seed(cases=11)  # 33 responses per expert, 132 units
    judge_import(ids, "copycat", copies_majority)
    judge_import(ids, "coin", agrees_60)
    good = panel("--judge", "copycat")
    assert sorted(good["alt_test"]) == ["0.1", "0.15", "0.2"]
    assert good["units"] == {
        "round": 132,
        "compared": 132,
        "no_judge_verdict": 0,
        "fewer_than_two_votes": 0,
    }
    for test in good["alt_test"].values():
        assert test["winning_rate"] == 1.0 and test["passed"] is True
        assert len(test["experts"]) == 3
        assert all(e["items"] == 33 and e["instances"] == 132 for e in test["experts"])
        assert all(e["judge_wins"] for e in test["experts"])
    # Experts appear by their pseudonyms only.
    names = {e["expert"] for e in good["alt_test"]["0.2"]["experts"]}
    assert not names & {"e0", "e1", "e2"} and len(names) == 3
    assert good["judge_version"]["config"] == "copycat"
    assert good["f1"]["judge"]["value"] > max(e["value"] for e in good["f1"]["experts"])

    bad = panel("--judge", "coin")
    agreement = sum(
        agrees_60(c, s, p) == majority(c, s, p) for c in ids for s in range(3) for p in POSITIONS
    ) / (len(ids) * 3 * 4)
    assert agreement == pytest.approx(0.6, abs=0.01)
    for test in bad["alt_test"].values():
        assert test["winning_rate"] == 0.0 and test["passed"] is False
        assert all(e["judge_wins"] is False for e in test["experts"])
    assert bad["f1"]["judge"]["value"] < min(e["value"] for e in bad["f1"]["experts"])


def test_too_few_items_says_so_and_gives_no_result():
    ids = seed(cases=3)  # 9 responses per expert
    judge_import(ids, "copycat", copies_majority)
    result = panel("--judge", "copycat", "--epsilon", "0.1")
    assert list(result["alt_test"]) == ["0.1"]
    test = result["alt_test"]["0.1"]
    assert test["winning_rate"] is None and test["passed"] is None
    assert test["reason"] == "alt_few_experts:units=0;needed=3"
    assert [e["reason"] for e in test["experts"]] == ["alt_few_items:units=9;needed=30"] * 3
    assert all(e["p_value"] is None and e["judge_wins"] is None for e in test["experts"])
    out = StringIO()
    call_command("judge_panel", "--benchmark", "hb", "--judge", "copycat", stdout=out)
    text = out.getvalue()
    assert "no result (0 experts rated enough responses; the test needs at least 3)" in text
    assert "this expert rated 9 responses; the test needs at least 30 per expert" in text


def test_margins_are_configurable_and_bad_input_is_named():
    ids = seed(cases=2)
    judge_import(ids, "copycat", copies_majority)
    result = panel("--judge", "copycat", "--epsilon", "0.05,0.3", "--epsilon", "0.25")
    assert list(result["alt_test"]) == ["0.05", "0.25", "0.3"]
    with pytest.raises(CommandError, match=r"The margin 1\.5 is not a number between 0 and 1"):
        panel("--judge", "copycat", "--epsilon", "1.5")
    with pytest.raises(CommandError, match="No judge named nobody"):
        panel("--judge", "nobody")
    with pytest.raises(CommandError, match="No review round"):
        call_command("judge_panel", "--benchmark", "hb", "--round", "X", "--judge", "copycat")
