"""Choosing a judge: every judge version run on a review round (against the simulator over
HTTP), side by side with its agreement, kappa, paired difference to the best one, cost per
1,000 responses and median latency, and the cheapest whose evidence passes the gate."""

import datetime as dt
import json
import re
import statistics
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import EXPERT, RESEARCHER
from accounts.services import user_create_with_role
from annotation.models import Assignment, ReviewRound
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeAttempt, JudgeRun, Verdict
from judging.services.judgments_import import judgments_import
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start
from leaderboard.models import GatePolicy
from leaderboard.selection.selectors.versions import judge_selection
from leaderboard.stats.paired import mcnemar_exact
from tests.conftest import client_for, jsonl_bytes, lines
from tests.judging.conftest import judged_benchmark, sim_config, simulator  # noqa: F401

# The judge runs in threads of their own, which see only committed rows.
pytestmark = pytest.mark.django_db(transaction=True)

PRICES = {
    "large": (Decimal("0.01"), Decimal("0.03")),
    "small": (Decimal("0.001"), Decimal("0.002")),
}


def _run(benchmark, systems, config) -> JudgeRun:
    run = judge_run_start(benchmark=benchmark, systems=systems, config=config)
    run_here(run_id=run.pk, lanes=2)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED
    return run


def _verdicts(run: JudgeRun) -> dict[tuple[int, int], bool]:
    return {
        (response, criterion): hit
        for response, criterion, hit in Verdict.objects.filter(task__run=run).values_list(
            "task__response_id", "criterion_id", "hit"
        )
    }


@pytest.fixture
def judged_round(judged_benchmark, sim_config, simulator):  # noqa: F811
    """Three judges on the eight responses: `large` and `small` with prices, `free` without.
    The experts then vote as `large` judged, so `large` agrees on every unit; `small`,
    drawn from the same mostly-hit verdicts, agrees on most; `free`, drawing evenly, on
    about half."""
    benchmark, systems = judged_benchmark
    simulator.configure(hit_rate=0.9)
    runs = {}
    for name in ("large", "small"):
        prompt, completion = PRICES[name]
        config = sim_config(
            name=name,
            model=f"sim-{name}",
            price_prompt_per_1k=prompt,
            price_completion_per_1k=completion,
        )
        runs[name] = _run(benchmark, systems, config)
    simulator.configure(hit_rate=0.5)
    runs["free"] = _run(benchmark, systems, sim_config(name="free", model="sim-free"))
    experts = [
        user_create_with_role(username=f"e{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    round_ = round_open(
        benchmark=benchmark, name="R1", systems=systems, experts=experts, fraction=1.0
    )
    gold = _verdicts(runs["large"])
    for expert in experts:
        while (a := assignment_next(expert=expert, round_=round_)) is not None:
            Assignment.objects.filter(pk=a.pk).update(assigned=a.assigned - dt.timedelta(hours=1))
            votes = [
                VoteInput(c.pk, gold[(a.item.response_id, c.pk)])
                for c in item_criteria(assignment=a)
            ]
            assignment_submit(
                assignment=a, votes=votes, comment="", active_seconds=10, base_revision=0
            )
    return round_, runs


def _agreement_with(run: JudgeRun, gold: dict) -> float:
    mine = _verdicts(run)
    return sum(mine[key] == hit for key, hit in gold.items()) / len(gold)


def test_every_judge_side_by_side_best_first(judged_round):
    round_, runs = judged_round
    gold = _verdicts(runs["large"])
    small, free = _agreement_with(runs["small"], gold), _agreement_with(runs["free"], gold)
    # The draws are fixed by the requests: the simulator's verdicts make this ordering.
    assert 1.0 > small >= 0.75 > free
    result = judge_selection(round_=round_, resamples=200)
    judges = {row["label"]: row for row in result["judges"]}
    assert [row["label"] for row in result["judges"]] == ["large v1", "small v1", "free v1"]
    assert result["best"] == "large v1" and result["items"] == 8
    assert judges["large v1"]["units"] == 32
    assert judges["large v1"]["agreement"]["value"] == 1.0
    assert judges["small v1"]["agreement"]["value"] == pytest.approx(small)
    assert judges["free v1"]["agreement"]["value"] == pytest.approx(free)
    low, high = (judges["small v1"]["wilson_95"][k] for k in ("low", "high"))
    assert low < small < high
    assert judges["large v1"]["versus_best"] is None  # the reference itself

    # Against the best, on the same 32 units: every unit `small` gets wrong, `large` gets
    # right (it agrees everywhere), so McNemar's discordant pairs are all on one side.
    paired = judges["small v1"]["versus_best"]
    wrong = round((1 - small) * 32)
    assert paired["units"] == 32
    assert (paired["best_right_only"], paired["this_right_only"]) == (wrong, 0)
    assert paired["difference"]["value"] == pytest.approx(small - 1.0)
    assert paired["mcnemar_p"]["value"] == pytest.approx(mcnemar_exact(wrong, 0).value)
    assert paired["difference_95"]["low"] <= small - 1.0 <= paired["difference_95"]["high"]
    assert paired["difference_95"]["high"] <= 0


def test_cost_latency_and_the_cheapest_passing_judge(judged_round):
    round_, runs = judged_round
    result = judge_selection(round_=round_, resamples=200)
    judges = {row["label"]: row for row in result["judges"]}
    for name in ("large", "small"):
        calls = JudgeAttempt.objects.filter(task__run=runs[name]).exclude(outcome="cached")
        prompt = sum(calls.values_list("prompt_tokens", flat=True))
        completion = sum(calls.values_list("completion_tokens", flat=True))
        price_in, price_out = PRICES[name]
        per_response = (prompt * price_in + completion * price_out) / 1000 / 8
        row = judges[f"{name} v1"]
        assert row["usage"]["tasks"] == 8 and row["usage"]["prompt_tokens"] == prompt
        assert row["cost_per_1000"]["value"] == pytest.approx(float(per_response * 1000))
        latencies = [v for v in calls.values_list("latency_ms", flat=True) if v > 0]
        assert row["median_latency_ms"]["value"] == statistics.median(latencies)
        assert row["gate"]["passed"] is True
    free = judges["free v1"]
    assert free["cost_per_1000"] == {"value": None, "reason": "no_prices"}
    assert free["usage"]["prompt_tokens"] > 0  # it was called: only the prices are missing
    assert free["gate"]["passed"] is False
    large, small = judges["large v1"], judges["small v1"]
    assert small["cost_per_1000"]["value"] < large["cost_per_1000"]["value"]
    assert result["cheapest_passing"] == {"label": "small v1", "reason": None}


def test_undefined_where_nothing_was_recorded_and_none_passes(judged_round):
    round_, _runs = judged_round
    benchmark = round_.benchmark
    # Imported verdicts (one file per system): no call, so neither tokens nor latency; all
    # "miss", so they agree with the mostly-hit majority on few units.
    for system in ("Alpha", "Beta"):
        rows = [{"question_id": f"c{i}", "score_detail": [0, 0, 0, 0]} for i in range(1, 5)]
        judgments_import(
            chunks=lines(jsonl_bytes(rows)),
            benchmark_slug=benchmark.slug,
            system_name=system,
            judge_name="imported",
        )
    GatePolicy.objects.update_or_create(benchmark=benchmark, defaults={"threshold": 1.0})
    result = judge_selection(round_=round_, resamples=200)
    imported = next(row for row in result["judges"] if row["label"] == "imported v1")
    assert len(imported["runs"]) == 2  # two runs of one version cover the round together
    assert imported["cost_per_1000"]["reason"] == "no_usage_recorded"
    assert imported["median_latency_ms"] == {"value": None, "reason": "no_latency_recorded"}
    assert result["judges"][-1]["label"] == "imported v1"
    # At a threshold of 100% only `large` passes, the cheapest passing is the only one.
    assert result["cheapest_passing"]["label"] == "large v1"
    GatePolicy.objects.filter(benchmark=benchmark).update(rule="lower_bound")
    nobody = judge_selection(round_=round_, resamples=200)
    assert nobody["cheapest_passing"] == {"label": None, "reason": "no_judge_passes"}


def test_queries_do_not_grow_with_judges(judged_round):
    round_, _runs = judged_round
    with CaptureQueriesContext(connection) as queries:
        result = judge_selection(round_=round_, resamples=50)
    assert len(result["judges"]) == 3
    # Policy, items; the covering versions and their runs; the round's items, criteria,
    # pseudonyms and votes, then the tasks and verdicts of every version at once; tokens
    # and latencies; the rubric versions for the provenance.
    assert len(queries) == 13, "\n".join(q["sql"] for q in queries.captured_queries)


def test_a_round_no_judge_covers(judged_benchmark):  # noqa: F811
    benchmark, systems = judged_benchmark
    experts = [
        user_create_with_role(username=f"e{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    round_ = round_open(benchmark=benchmark, name="R0", systems=systems, experts=experts)
    result = judge_selection(round_=round_, resamples=50)
    assert result["judges"] == [] and result["best"] is None
    assert result["cheapest_passing"]["reason"] == "no_judge_covers_round"
    researcher = user_create_with_role(username="r", password="x-pass-123", role=RESEARCHER)
    page = _page(researcher)  # the newest round, without naming it
    assert "No judge to choose yet" in page and 'id="judges"' not in page
    assert "no judge version has finished runs that cover every response" in page


def _command(*args) -> dict:
    out = StringIO()
    call_command("judge_selection", *args, "--json", "--resamples", "100", stdout=out)
    return json.loads(out.getvalue())


def test_the_command_and_the_api(judged_round, capsys):
    found = _command("--round", "R1")
    assert found["cheapest_passing"]["label"] == "small v1" and found["benchmark"] == "hb"
    assert found["produced_by"].startswith("Concord ")
    assert found["judges"][0]["judge_version"]["config"] == "large"
    assert _command("--round", "R1", "--benchmark", "hb")["round"] == "R1"
    call_command("judge_selection", "--round", "R1", "--resamples", "100")
    table = capsys.readouterr().out
    assert "cheapest passing: small v1" in table and "has no price (0) for tokens" in table
    with pytest.raises(CommandError, match="No review round 'nope'"):
        call_command("judge_selection", "--round", "nope")
    with pytest.raises(CommandError, match="no benchmark with slug 'zz'"):
        call_command("judge_selection", "--round", "R1", "--benchmark", "zz")

    researcher = user_create_with_role(username="r", password="x-pass-123", role=RESEARCHER)
    url = reverse("api-judge-selection", args=["hb"])
    answer = client_for(researcher).get(url, {"round": "R1"})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["cheapest_passing"] == {"label": "small v1", "reason": None, "reason_text": None}
    free = next(row for row in body["judges"] if row["label"] == "free v1")
    assert free["cost_per_1000"]["reason_text"].startswith("the judge configuration has no")
    assert client_for(researcher).get(url, {"round": "nope"}).status_code == 400
    expert = ReviewRound.objects.get(name="R1").experts.first()
    assert client_for(expert).get(url, {"round": "R1"}).status_code == 403


def _page(user, language: str = "en", **query) -> str:
    client = client_for(user)
    client.cookies["django_language"] = language
    answer = client.get(reverse("judge-selection", args=["hb"]), query)
    assert answer.status_code == 200
    return answer.content.decode()


def test_the_page_in_english_and_chinese(judged_round):
    round_, _runs = judged_round
    researcher = user_create_with_role(username="r", password="x-pass-123", role=RESEARCHER)
    english = _page(researcher, round="R1")
    rows = re.findall(r'<tr data-judge="([^"]+)"', english)
    assert rows == ["large v1", "small v1", "free v1"]
    assert "Cheapest judge that passes the gate: small v1" in english
    assert (
        "the judge configuration has no price (0) for tokens" in english
    )  # free's cost, with its reason
    assert "the best (reference)" in english
    # The chart places the two judges with a cost; the third is named below it.
    chart = english[english.index("<svg") : english.index("</svg>")]
    assert chart.count('<g class="judge') == 2 and "free v1" not in chart
    assert 'role="img"' in chart and "<title" in chart
    assert re.search(r'id="unplaced">[^<]*free v1', english)
    chinese = _page(researcher, "zh-hans", round=str(round_.pk))
    assert "通过门槛的最便宜评审模型：small v1" in chinese
    assert "专家标注轮次" in chinese and "Cheapest judge" not in chinese
    # The agreement page links here, for the round it shows.
    agreement = client_for(researcher).get(reverse("agreement", args=["hb"]), {"round": "R1"})
    link = reverse("judge-selection", args=["hb"]) + f"?round={round_.pk}"
    assert link in agreement.content.decode()
    missing = client_for(researcher).get(reverse("judge-selection", args=["hb"]), {"round": "x"})
    assert missing.status_code == 404
