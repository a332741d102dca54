"""The leaderboard's depth: bootstrap interval, ability heatmap, normal vs hard, scenes and
human respondents, live and in a published snapshot, checked against hand computations."""

import math
import re

import numpy as np
import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import System
from judging.models import JudgeRun
from leaderboard.boards.selectors.scores import leaderboard_rows
from leaderboard.models import GateEvaluation, LeaderboardSnapshot
from tests.conftest import board_of, client_for, question
from tests.leaderboard.test_scores import C1_RUBRIC, answer, judge, load_benchmark, merged

pytestmark = pytest.mark.django_db

# c3 sits in another scene and is the only case with 温暖 (Warmth); the human respondent
# does not answer it, so its 温暖 cell and its 亲密关系 scene have no score.
C3 = question(
    "c3",
    primary_scene="亲密关系",
    rubric=[
        {"dimension": "温暖", "score": 2, "content": "语气温和，表达陪伴"},
        {"dimension": "好奇心", "score": 4, "content": "询问关系中的具体感受"},
        {"dimension": "其他", "score": None, "content": "没有回应用户，而是以用户的身份说话"},
    ],
)
A = 100 * math.log(4) / math.log(6)  # 情绪感知 of Alpha's c1: raw 3 of max 5

# S_d per case by hand (see C1_RUBRIC and tests.conftest.question for the rubrics):
# Alpha c1 [1,0,1,0,0]: 情绪感知 A, 好奇心 100, 言语表达 100 (penalty not hit)
# Alpha c2 [0,1,1,0] (hard): 情绪感知 0, 好奇心 100, 言语表达 0 (penalty hit)
# Alpha c3 [1,1,0]: 温暖 100, 好奇心 100
# Parent c1 [1,1,1,0,0]: 100, 100, 100; c2 [0,0,0,1] hits 其他: every S_d 0 (paper rule)
S_D = {
    "Alpha": [
        {"情绪感知": A, "好奇心": 100.0, "言语表达": 100.0},
        {"情绪感知": 0.0, "好奇心": 100.0, "言语表达": 0.0},
        {"温暖": 100.0, "好奇心": 100.0},
    ],
    "Parent": [
        {"情绪感知": 100.0, "好奇心": 100.0, "言语表达": 100.0},
        {"情绪感知": 0.0, "好奇心": 0.0, "言语表达": 0.0},
    ],
}


def direct_overall(cases: list[dict[str, float]]) -> float:
    abilities: dict[str, list[float]] = {}
    for case in cases:
        for label, value in case.items():
            abilities.setdefault(label, []).append(value)
    return sum(sum(v) / len(v) for v in abilities.values()) / len(abilities)


def direct_interval(cases: list[dict[str, float]]) -> list[float]:
    """1,000 resamples of the cases with the documented seed, scored one by one."""
    picks = np.random.default_rng(20251).integers(0, len(cases), size=(1000, len(cases)))
    values = [direct_overall([cases[i] for i in drawn]) for drawn in picks]
    return [pytest.approx(float(x), abs=1e-9) for x in np.percentile(values, [2.5, 97.5])]


@pytest.fixture
def run() -> JudgeRun:
    load_benchmark(C3)
    answer("Alpha", ["c1", "c2", "c3"])
    answer("Parent", ["c1", "c2"])
    System.objects.filter(name="Parent").update(kind=System.Kind.HUMAN)
    alpha = judge("Alpha", {"c1": [1, 0, 1, 0, 0], "c2": [0, 1, 1, 0], "c3": [1, 1, 0]})
    parent = judge("Parent", {"c1": [1, 1, 1, 0, 0], "c2": [0, 0, 0, 1]})
    return merged(alpha, parent)


def test_rows_match_a_direct_computation(run):
    assert C1_RUBRIC[0]["dimension"] == "情绪感知"
    alpha, parent = leaderboard_rows(board=board_of(run), profile="heartbench")
    assert (alpha["system"], alpha["is_human"], parent["system"], parent["is_human"]) == (
        "Alpha",
        False,
        "Parent",
        True,
    )
    exact = pytest.approx
    assert alpha["overall"] == exact(direct_overall(S_D["Alpha"]), abs=1e-9)
    assert round(alpha["overall"], 2) == 72.17
    assert alpha["overall_95"] == direct_interval(S_D["Alpha"])
    assert alpha["overall_95"][0] <= alpha["overall"] <= alpha["overall_95"][1]
    normal = direct_overall([S_D["Alpha"][0], S_D["Alpha"][2]])
    hard = direct_overall([S_D["Alpha"][1]])
    assert (alpha["normal"], alpha["hard"]) == (exact(normal, abs=1e-9), exact(hard, abs=1e-9))
    assert alpha["relative_decline"] == exact((normal - hard) / normal, abs=1e-12)
    assert alpha["abilities"] == {
        "言语表达": 50.0,
        "好奇心": 100.0,
        "温暖": 100.0,
        "情绪感知": exact(A / 2, abs=1e-9),
    }
    assert alpha["categories"] == {
        "Personality": exact(250 / 3, abs=1e-9),
        "Emotion": exact(A / 2, abs=1e-9),
    }
    assert alpha["scenes"] == {
        "亲密关系": 100.0,
        "职场心理": exact(direct_overall(S_D["Alpha"][:2]), abs=1e-9),
    }
    assert alpha["scene_cases"] == {"亲密关系": 1, "职场心理": 2}

    assert parent["overall"] == 50.0 and parent["overall_95"] == direct_interval(S_D["Parent"])
    assert (parent["normal"], parent["hard"], parent["relative_decline"]) == (100.0, 0.0, 1.0)
    assert "温暖" not in parent["abilities"] and "亲密关系" not in parent["scenes"]


def board_html(body: str) -> str:
    """The shared tables of a page (from the ranking to the end of the scenes table)."""
    start = body.index('<h2 id="ranking">')
    end = body.index("primary scene of the case", start)
    return body[start:end]


def test_the_page_shows_the_heatmap_scenes_and_human_rows(run, researcher):
    body = client_for(researcher).get(reverse("leaderboard", args=["hb"])).content.decode()
    assert 'id="unpublished"' in body
    assert "1000 resamples" in body
    # Ranking with the interval; the human respondent is marked.
    assert re.search(r"Alpha</th>\s*<td class=\"num\">72.17</td>\s*<td class=\"num\">[\d.]+–", body)
    assert re.search(
        r'<tr class="human">[^<]*<td class="rank[^"]*"[^>]*>[12–]+</td>\s*<th scope="row">Parent',
        body,
    )
    # Heatmap: categories as column groups, a coloured cell with its number, and the human
    # respondent's missing Warmth shown as "—" with the reason, never 0.
    assert '<th scope="colgroup" colspan="3">Personality</th>' in body
    assert '<th scope="colgroup" colspan="1">Emotion</th>' in body
    assert re.search(
        r'<td class="num heat" style="background-color: hsl\(210 70% [\d.]+%\); '
        r'color: #(000000|ffffff)"',
        body,
    )
    assert (
        '<td class="num empty" title="No scored case of Parent contains this ability, so it '
        'has no score (not 0).">—</td>'
    ) in body
    assert "Parent has no scored case in this scene." in body
    assert "nan" not in body.lower().replace("nanum", "")


def test_the_published_snapshot_stores_and_shows_the_same_numbers(run, coordinator):
    GateEvaluation.objects.create(
        benchmark=run.benchmark,
        round=_round(run),
        run=run,
        judge_version=run.judge_version,
        threshold=0.75,
        rule="point",
        passed=True,
        units=120,
        agreement=0.87,
        lower_bound=0.8,
        upper_bound=0.92,
        report={},
    )
    client = client_for(coordinator)
    live = client.get(reverse("leaderboard", args=["hb"])).content.decode()
    published = client.post(
        reverse("leaderboard-publish", args=["hb"]),
        {"run": run.pk, "profile": "heartbench", "confirm": "yes"},
    )
    snapshot = LeaderboardSnapshot.objects.get()
    assert snapshot.rows == leaderboard_rows(board=board_of(run), profile="heartbench")
    page = client.get(published.url).content.decode()
    assert "agreed with the experts’ majority on 87.0% of 120 units" in page.replace("&#x27;", "’")
    assert board_html(page) == board_html(live)


def _round(run):
    from annotation.models import ReviewRound

    return ReviewRound.objects.create(benchmark=run.benchmark, name="R")


def test_the_api_flags_humans_and_carries_the_new_numbers(run, researcher):
    client = APIClient()
    client.force_authenticate(researcher)
    systems = client.get(reverse("api-leaderboard", args=["hb"]), {"run": run.pk}).json()["systems"]
    assert [(s["system"], s["kind"], s["is_human"]) for s in systems] == [
        ("Alpha", "llm", False),
        ("Parent", "human", True),
    ]
    assert systems[0]["overall_95"] == direct_interval(S_D["Alpha"])
    assert systems[0]["bootstrap"] == {"resamples": 1000, "seed": 20251, "unit": "case"}
    assert systems[1]["relative_decline"] == 1.0 and "亲密关系" not in systems[1]["scenes"]
