"""Leaderboard scores of a judge run, checked against hand computations.

Data is built the way a researcher would: a question file, answers files, and HeartBench
scored files read by `judgments_import` (verdicts without calling an LLM).
"""

import math

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import Benchmark, Response, System
from annotation.selectors.rubrics import current_rubric_version
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from judging.models import JudgeRun, JudgeTask
from judging.scoring import CaseVerdicts, ScoredCriterion
from judging.selectors.runs import latest_finished_run
from judging.services.judgments_import import judgments_import
from leaderboard.boards.selectors.scores import board_case_verdicts, leaderboard_rows
from tests.conftest import board_of, jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db

# c1 (normal) has two 情绪感知 criteria, so a partial hit gives a non-trivial log score.
C1_RUBRIC = [
    {"dimension": "情绪感知", "score": 3, "content": "指出用户的疲惫"},
    {"dimension": "情绪感知", "score": 2, "content": "说出用户的压力感"},
    {"dimension": "好奇心", "score": 4, "content": "用开放式问题询问加班的具体情况"},
    {"dimension": "言语表达", "score": -10, "content": "一次性给出 8 条或更多建议"},
    {"dimension": "其他", "score": None, "content": "没有回应用户，而是以用户的身份说话"},
]
# c2 (hard) keeps the default rubric: 情绪感知 +3, 好奇心 +4, 言语表达 -10, 其他 null.


def load_benchmark(*extra_rows: dict, slug: str = "hb") -> Benchmark:
    rows = [question("c1", rubric=C1_RUBRIC), question("c2", difficulty="hard"), *extra_rows]
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug=slug)
    return Benchmark.objects.get(slug=slug)


def answer(system: str, qids: list[str], slug: str = "hb") -> None:
    rows = [{"question_id": qid, "response": f"{system} 的回答 {qid}"} for qid in qids]
    responses_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug=slug, system_name=system)


def judge(
    system: str, details: dict[str, list], judge_name: str = "sonnet", slug: str = "hb"
) -> JudgeRun:
    rows = [
        {"question_id": qid, "score_detail": detail, "score_reason": f"reason {qid}"}
        for qid, detail in details.items()
    ]
    summary = judgments_import(
        chunks=lines(jsonl_bytes(rows)),
        benchmark_slug=slug,
        system_name=system,
        judge_name=judge_name,
    )
    return JudgeRun.objects.get(pk=summary.run)


def merged(first: JudgeRun, *others: JudgeRun) -> JudgeRun:
    """One run judging several systems (an LLM run would; an import covers one system)."""
    for other in others:
        first.systems.add(*other.systems.all())
        other.tasks.update(run=first)
        other.delete()
    return first


@pytest.fixture
def two_systems() -> JudgeRun:
    load_benchmark()
    answer("Alpha", ["c1", "c2"])
    answer("Beta", ["c1", "c2"])
    alpha = judge("Alpha", {"c1": [1, 0, 1, 0, 0], "c2": [0, 1, 1, 0]})
    # Beta's c1 hits the catastrophic criterion (其他, weight null).
    beta = judge("Beta", {"c1": [1, 1, 1, 0, 1], "c2": [1, 1, 0, 0]})
    return merged(alpha, beta)


def test_case_verdicts_carry_labels_categories_weights_and_hits(two_systems):
    cases, failed = board_case_verdicts(board=board_of(two_systems))
    assert failed == {"Alpha": 0, "Beta": 0}
    assert [case.case_id for case in cases["Alpha"]] == ["c1", "c2"]
    c1 = cases["Alpha"][0]
    assert isinstance(c1, CaseVerdicts)
    assert (c1.difficulty, c1.scenario) == ("normal", "职场心理 / 工作压力")
    assert c1.criteria == (
        ScoredCriterion("情绪感知", "Emotion", 3, False, True),
        ScoredCriterion("情绪感知", "Emotion", 2, False, False),
        ScoredCriterion("好奇心", "Personality", 4, False, True),
        ScoredCriterion("言语表达", "Personality", -10, False, False),
        ScoredCriterion("其他", "Catastrophic failure", None, True, False),
    )
    assert cases["Alpha"][1].difficulty == "hard"


def test_leaderboard_numbers_match_a_hand_computation(two_systems):
    # Alpha, c1 (normal), verdicts [1, 0, 1, 0, 0]:
    #   情绪感知: raw 3, min 0, max 5 -> 100 * ln(3 - 0 + 1) / ln(5 - 0 + 1) = 77.3706
    #   好奇心:   raw 4, min 0, max 4 -> 100 * ln 5 / ln 5 = 100
    #   言语表达: raw 0, min -10, max 0 (penalty not hit) -> 100 * ln 11 / ln 11 = 100
    # Alpha, c2 (hard), verdicts [0, 1, 1, 0]:
    #   情绪感知 0 (ln 1 = 0), 好奇心 100, 言语表达 raw -10 -> 100 * ln 1 / ln 11 = 0
    # Abilities: 情绪感知 (77.3706 + 0) / 2 = 38.6853, 好奇心 100, 言语表达 (100 + 0) / 2 = 50
    # Overall = (38.6853 + 100 + 50) / 3 = 62.8951
    # Normal = (77.3706 + 100 + 100) / 3 = 92.4569; hard = (0 + 100 + 0) / 3 = 33.3333
    # Relative decline = (92.4569 - 33.3333) / 92.4569 = 0.6395
    # Categories: Emotion = 38.6853; Personality = (100 + 50) / 2 = 75
    s_c1 = 100 * math.log(4) / math.log(6)
    assert s_c1 == pytest.approx(77.3706, abs=1e-4)
    normal, hard = (s_c1 + 200) / 3, 100 / 3

    rows = leaderboard_rows(board=board_of(two_systems), profile="heartbench")
    alpha = rows[0]
    exact = pytest.approx
    # Full precision: machine-readable outputs are never rounded (pages round).
    assert alpha == {
        "system": "Alpha",
        "kind": "llm",
        "is_human": False,
        "overall": exact((s_c1 / 2 + 150) / 3, abs=1e-9),
        # Two cases: the resamples are {c1, c1}, {c1, c2} and {c2, c2}, so the percentiles
        # reach the normal-only and the hard-only scores.
        "overall_95": [exact(hard, abs=1e-9), exact(normal, abs=1e-9)],
        "bootstrap": {"resamples": 1000, "seed": 20251, "unit": "case"},
        "normal": exact(normal, abs=1e-9),
        "hard": exact(hard, abs=1e-9),
        "relative_decline": exact((normal - hard) / normal, abs=1e-12),
        "abilities": {"言语表达": 50.0, "好奇心": 100.0, "情绪感知": exact(s_c1 / 2, abs=1e-9)},
        "ability_cases": {"言语表达": 2, "好奇心": 2, "情绪感知": 2},
        "categories": {"Personality": 75.0, "Emotion": exact(s_c1 / 2, abs=1e-9)},
        # Both cases are in the 职场心理 scene.
        "scenes": {"职场心理": exact((s_c1 / 2 + 150) / 3, abs=1e-9)},
        "scene_cases": {"职场心理": 2},
        "cases_scored": 2,
        "cases_failed": 0,
        "undefined": {},
    }
    assert alpha["overall"] != round(alpha["overall"], 2)  # not rounded
    assert (alpha["overall"], alpha["normal"], alpha["hard"]) == (
        exact(62.895, abs=1e-3),
        exact(92.457, abs=1e-3),
        exact(33.333, abs=1e-3),
    )


def test_a_catastrophic_hit_zeroes_the_case_under_heartbench_only(two_systems):
    # Beta c1 hits 其他: under the paper's rule every S_d of c1 is 0, so each ability is
    # (0 + 100) / 2 = 50, overall 50, normal 0 and the decline relative to 0 is undefined.
    paper = {
        row["system"]: row
        for row in leaderboard_rows(board=board_of(two_systems), profile="heartbench")
    }
    beta = paper["Beta"]
    assert (beta["overall"], beta["normal"], beta["hard"]) == (50.0, 0.0, 100.0)
    assert beta["abilities"] == {"言语表达": 50.0, "好奇心": 50.0, "情绪感知": 50.0}
    assert beta["relative_decline"] is None
    assert beta["undefined"]["relative_decline"] == "normal_score_zero"

    # The released code only fires on a positive weight, and 其他 is null: c1 keeps 100s.
    code_rows = leaderboard_rows(board=board_of(two_systems), profile="heartbench-code")
    assert [row["system"] for row in code_rows] == ["Beta", "Alpha"]
    beta = code_rows[0]
    assert (beta["overall"], beta["normal"], beta["hard"]) == (100.0, 100.0, 100.0)
    assert beta["relative_decline"] == 0.0 and beta["undefined"] == {}
    # Alpha hit no catastrophic criterion: both profiles agree.
    assert code_rows[1]["overall"] == paper["Alpha"]["overall"]


def test_failed_tasks_are_counted_and_never_scored(two_systems):
    answer("Gamma", ["c1", "c2"])
    run = merged(two_systems, judge("Gamma", {"c1": [1, 1, 1, 0, 0]}))
    c2 = Response.objects.get(system__name="Gamma", case__external_id="c2")
    JudgeTask.objects.create(
        run=run,
        case=c2.case,
        system=c2.system,
        response=c2,
        rubric_version=current_rubric_version(case=c2.case),
        status=JudgeTask.Status.FAILED,
        last_error="attempt 5: invalid reply",
    )
    # A cancelled task is neither scored nor failed.
    run.tasks.filter(response__system__name="Beta", response__case__external_id="c2").update(
        status=JudgeTask.Status.CANCELLED
    )

    cases, failed = board_case_verdicts(board=board_of(run))
    assert failed == {"Alpha": 0, "Beta": 0, "Gamma": 1}
    assert [case.case_id for case in cases["Gamma"]] == ["c1"]
    assert [case.case_id for case in cases["Beta"]] == ["c1"]

    gamma = next(
        r
        for r in leaderboard_rows(board=board_of(run), profile="heartbench")
        if r["system"] == "Gamma"
    )
    # Only c1 counts: 情绪感知 100, 好奇心 100, 言语表达 100 -> 100, not (100 + 0) / 2.
    assert gamma["overall"] == 100.0 and gamma["normal"] == 100.0
    assert gamma["cases_scored"] == 1 and gamma["cases_failed"] == 1
    assert gamma["hard"] is None and gamma["relative_decline"] is None
    assert gamma["undefined"]["hard"] == "no_hard_cases"


def test_rows_put_undefined_overall_last(two_systems):
    System.objects.create(name="Idle", kind=System.Kind.HUMAN)
    two_systems.systems.add(System.objects.get(name="Idle"))
    rows = leaderboard_rows(board=board_of(two_systems), profile="heartbench")
    assert [row["system"] for row in rows] == ["Alpha", "Beta", "Idle"]
    idle = rows[-1]
    assert idle["kind"] == "human" and idle["overall"] is None
    assert idle["undefined"]["overall"] == "no_cases"
    assert idle["abilities"] == {} and idle["cases_scored"] == 0


def _queries_for(cases: int, slug: str) -> int:
    extra = [question(f"x{i}", difficulty="hard" if i % 2 else "normal") for i in range(cases)]
    load_benchmark(*extra, slug=slug)
    qids = ["c2", *(f"x{i}" for i in range(cases))]
    for name in ("Alpha", "Beta"):
        answer(name, qids, slug=slug)
    runs = [
        judge(name, {qid: [1, 0, 1, 0] for qid in qids}, slug=slug) for name in ("Alpha", "Beta")
    ]
    board = board_of(merged(*runs))
    with CaptureQueriesContext(connection) as captured:
        rows = leaderboard_rows(board=board, profile="heartbench")
    assert rows[0]["cases_scored"] == cases + 1
    return len(captured)


def test_leaderboard_queries_do_not_grow_with_the_number_of_cases():
    small = _queries_for(3, slug="small")
    large = _queries_for(60, slug="large")
    assert small == large
    assert large <= 8


def test_latest_finished_run_ignores_unfinished_runs(two_systems):
    benchmark = two_systems.benchmark
    assert latest_finished_run(benchmark=benchmark) == two_systems
    newer = judge("Alpha", {"c1": [0, 0, 0, 0, 0]})
    assert latest_finished_run(benchmark=benchmark) == newer
    JudgeRun.objects.filter(pk=newer.pk).update(status=JudgeRun.Status.RUNNING, finished=None)
    assert latest_finished_run(benchmark=benchmark) == two_systems
    JudgeRun.objects.filter(pk=two_systems.pk).update(
        finished=timezone.now() - timezone.timedelta(days=1)
    )
    assert latest_finished_run(benchmark=benchmark) == two_systems
    JudgeRun.objects.all().update(status=JudgeRun.Status.CANCELLED)
    assert latest_finished_run(benchmark=benchmark) is None
