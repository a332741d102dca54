"""A judge's leaderboard spans its runs: three systems imported in three runs rank together,
the newest verdicts of a case count, and the numbers equal a direct transcription of
HeartBench's formula to 1e-9 in both profiles."""

import json
import math
import random
from collections import defaultdict

import pytest
from django.core.management import call_command

from tests.conftest import jsonl_bytes, question

pytestmark = pytest.mark.django_db

SYSTEMS = ("Alpha", "Beta", "Gamma")
RUBRICS = {
    "k1": [("情绪感知", 3), ("情绪感知", 2), ("好奇心", 4), ("言语表达", -10), ("其他", None)],
    "k2": [("温暖", 5), ("好奇心", 1), ("言语表达", -3), ("言语表达", -2), ("其他", None)],
    "k3": [("情绪应对", 6), ("温暖", 2), ("其他", -4), ("其他", None)],
    "k4": [("主动性", 8), ("情绪感知", 1), ("动机", 3), ("其他", None)],
    "k5": [("言语表达", -5), ("情绪理解", 7), ("其他", None)],
}
DIFFICULTY = {"k1": "normal", "k2": "hard", "k3": "normal", "k4": "hard", "k5": "normal"}


def rows() -> list[dict]:
    return [
        question(
            qid,
            difficulty=DIFFICULTY[qid],
            rubric=[
                {"dimension": d, "score": w, "content": f"{qid} 第{i}条"}
                for i, (d, w) in enumerate(rubric, start=1)
            ],
        )
        for qid, rubric in RUBRICS.items()
    ]


def hits_for(system: str, qid: str, salt: str = "") -> list[int]:
    rng = random.Random(f"{system}/{qid}/{salt}")
    return [int(rng.random() < 0.5) for _ in RUBRICS[qid]]


def direct(verdicts: dict[str, list[int]], profile: str, cases=None) -> float:
    """HeartBench's formula, written out: S_d per case and ability, the catastrophic rule,
    ability means over the cases that have the ability, the unweighted mean of those."""
    per_ability: dict[str, list[float]] = defaultdict(list)
    for qid, hits in verdicts.items():
        if cases is not None and qid not in cases:
            continue
        rubric = RUBRICS[qid]
        fires = any(
            hit and d == "其他" and (profile == "heartbench" or (w is not None and w > 0))
            for (d, w), hit in zip(rubric, hits, strict=True)
        )
        abilities: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for (d, w), hit in zip(rubric, hits, strict=True):
            if d != "其他" and w is not None:
                abilities[d].append((w, hit))
        for d, items in abilities.items():
            raw = sum(w for w, hit in items if hit)
            low = sum(w for w, _ in items if w < 0)
            high = sum(w for w, _ in items if w > 0)
            s = 0.0 if high - low <= 0 else 100 * math.log(raw - low + 1) / math.log(high - low + 1)
            per_ability[d].append(0.0 if fires else s)
    means = [sum(v) / len(v) for v in per_ability.values()]
    return sum(means) / len(means)


@pytest.fixture
def imported(tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_bytes(jsonl_bytes(rows()))
    call_command("import_benchmark", str(questions), "--benchmark", "hb3")
    verdicts = {}
    for system in SYSTEMS:
        answers = tmp_path / f"a-{system}.jsonl"
        answers.write_bytes(
            jsonl_bytes([{"question_id": q, "response": f"{system}:{q}"} for q in RUBRICS])
        )
        call_command("import_responses", str(answers), "--benchmark", "hb3", "--system", system)
        verdicts[system] = {qid: hits_for(system, qid) for qid in RUBRICS}
        scored = tmp_path / f"s-{system}.jsonl"
        scored.write_bytes(
            jsonl_bytes(
                [{"question_id": q, "score_detail": h} for q, h in verdicts[system].items()]
            )
        )
        call_command(
            "import_judgments",
            str(scored),
            "--benchmark",
            "hb3",
            "--system",
            system,
            "--judge",
            "sonnet",
        )
    return verdicts


def board(capsys, *args) -> dict:
    capsys.readouterr()
    call_command("leaderboard", "--benchmark", "hb3", "--json", *args)
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("profile", ["heartbench", "heartbench-code"])
def test_three_imports_rank_together_and_equal_the_formula(imported, capsys, profile):
    printed = board(capsys, "--judge", "sonnet", "--profile", profile)
    assert len(printed["runs"]) == 3 and printed["judge_version"]["config"] == "sonnet"
    rows = {row["system"]: row for row in printed["systems"]}
    assert set(rows) == set(SYSTEMS)
    for system, verdicts in imported.items():
        row = rows[system]
        assert row["overall"] == pytest.approx(direct(verdicts, profile), abs=1e-9)
        normal = {q for q, d in DIFFICULTY.items() if d == "normal"}
        hard = set(RUBRICS) - normal
        assert row["normal"] == pytest.approx(direct(verdicts, profile, normal), abs=1e-9)
        assert row["hard"] == pytest.approx(direct(verdicts, profile, hard), abs=1e-9)
    overall = [row["overall"] for row in printed["systems"]]
    assert overall == sorted(overall, reverse=True)
    # The same board without naming the judge: the version that finished a run last.
    assert board(capsys, "--profile", profile)["systems"] == printed["systems"]


def test_a_case_judged_again_counts_with_its_newest_verdicts(imported, capsys, tmp_path):
    again = {qid: hits_for("Alpha", qid, "again") for qid in ("k1", "k2")}
    scored = tmp_path / "again.jsonl"
    scored.write_bytes(
        jsonl_bytes([{"question_id": q, "score_detail": h} for q, h in again.items()])
    )
    call_command(
        "import_judgments",
        str(scored),
        "--benchmark",
        "hb3",
        "--system",
        "Alpha",
        "--judge",
        "sonnet",
    )
    rows = {row["system"]: row for row in board(capsys, "--judge", "sonnet")["systems"]}
    newest = {**imported["Alpha"], **again}
    assert rows["Alpha"]["overall"] == pytest.approx(direct(newest, "heartbench"), abs=1e-9)
    assert rows["Alpha"]["cases_scored"] == len(RUBRICS)  # each case once, not twice
