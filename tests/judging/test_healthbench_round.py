"""A HealthBench-format benchmark goes through Concord end to end: imported as released,
reviewed blind in a round, judged by an imported grader output, evaluated at the gate,
corrected by the experts' votes, published and bundled; and its grader output scores under
the healthbench profile."""

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from accounts.roles import COORDINATOR, EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, ReviewRound, System
from annotation.services.healthbench_import import healthbench_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open, round_set_status
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeRun, Verdict
from judging.scoring import Profile
from judging.scoring.healthbench import GradedCriterion, GradedExample, score_healthbench
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.corrected.board import corrected_board
from leaderboard.evidence.selectors.pick import agreement_evidence
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.gate.services.evaluation import gate_evaluate, leaderboard_publish
from leaderboard.models import GateEvaluation, LeaderboardSnapshot
from tests.annotation.importing.test_healthbench_import import healthbench_example

pytestmark = pytest.mark.django_db

JUDGE = "HealthBench grader (imported)"
MODEL = "Model H"
IDEAL = "HealthBench ideal completion (Group 1)"
EXAMPLES = 12
THEMES = ["theme:emergency_referrals", "theme:global_health"]


def truth(case_index: int, system: str, position: int) -> bool:
    """The behaviour the experts see, and the grader too: varied across criteria."""
    return (case_index * 7 + position * 3 + (system == MODEL)) % 3 != 0


def lines(rows) -> io.BytesIO:
    return io.BytesIO(
        b"".join((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8") for r in rows)
    )


def grader_output(system: str) -> list[dict]:
    """HealthBench's graded examples as its eval records them, one line per example."""
    out = []
    for index in range(EXAMPLES):
        example = healthbench_example(f"hb-{index}")
        out.append(
            {
                "prompt_id": f"hb-{index}",
                "score": None,
                "rubric_items": [
                    {
                        **item,
                        "criteria_met": truth(index, system, position),
                        "explanation": f"理由 {position}",
                    }
                    for position, item in enumerate(example["rubrics"], start=1)
                ],
            }
        )
    return out


@pytest.fixture
def benchmark(tmp_path) -> Benchmark:
    examples = [
        healthbench_example(f"hb-{i}", example_tags=[THEMES[i % 2]]) for i in range(EXAMPLES)
    ]
    healthbench_import(chunks=lines(examples), benchmark_slug="hb", benchmark_name="HB")
    responses_import(
        chunks=lines(
            {"question_id": f"hb-{i}", "response": f"回答 {i}：请尽快就医。"}
            for i in range(EXAMPLES)
        ),
        benchmark_slug="hb",
        system_name=MODEL,
    )
    return Benchmark.objects.get(slug="hb")


def import_grader_output(tmp_path, system: str, rows, capsys) -> dict:
    path = tmp_path / f"{system}.jsonl"
    path.write_bytes(lines(rows).getvalue())
    capsys.readouterr()
    call_command(
        "import_judgments",
        str(path),
        "--benchmark",
        "hb",
        "--system",
        system,
        "--judge",
        JUDGE,
        "--format",
        "healthbench",
        "--json",
    )
    return json.loads(capsys.readouterr().out)


def test_a_round_a_gate_evaluation_and_a_bundle_on_a_healthbench_benchmark(
    benchmark, tmp_path, capsys
):
    experts = [
        user_create_with_role(username=f"expert{i}", password="x", role=EXPERT) for i in (1, 2, 3)
    ]
    coordinator = user_create_with_role(username="coord", password="x", role=COORDINATOR)
    systems = list(System.objects.filter(name__in=[MODEL, IDEAL]))
    assert len(systems) == 2
    round_ = round_open(
        benchmark=benchmark, name="HB round", systems=systems, experts=experts, fraction=1.0
    )
    submitted = 0
    while True:
        handed = 0
        for expert in experts:
            assignment = assignment_next(expert=expert, round_=round_)
            if assignment is None:
                continue
            handed += 1
            response = assignment.item.response
            index = int(response.case.external_id.split("-")[1])
            criteria = assignment.item.rubric_version.criteria.order_by("position")
            assignment_submit(
                assignment=assignment,
                votes=[
                    VoteInput(criterion_id=c.pk, hit=truth(index, response.system.name, c.position))
                    for c in criteria
                ],
                comment="",
                active_seconds=60,
                base_revision=assignment.revision,
            )
            submitted += 1
        if not handed:
            break
    assert submitted == EXAMPLES * 2 * 3
    round_set_status(round_=round_, status=ReviewRound.Status.CLOSED)

    for system in (MODEL, IDEAL):
        summary = import_grader_output(tmp_path, system, grader_output(system), capsys)
        assert (summary["tasks"], summary["verdicts"]) == (EXAMPLES, EXAMPLES * 4)
    verdict = Verdict.objects.filter(task__system__name=MODEL).order_by("pk").first()
    assert verdict.reasoning == "理由 1"

    evidence = agreement_evidence(benchmark=benchmark, round_ref="HB round", judge=JUDGE)
    evaluation = gate_evaluate(evidence=evidence, user=coordinator)
    assert GateEvaluation.objects.filter(pk=evaluation.pk).exists()
    assert evaluation.passed, evaluation
    snapshot = leaderboard_publish(
        board=board_runs(benchmark=benchmark, judge=JUDGE),
        profile=Profile.HEARTBENCH,
        user=coordinator,
    )
    # Corrected scores: the experts' votes correct the judge's board, per axis as well.
    corrected = corrected_board(
        board=board_runs(benchmark=benchmark, judge=JUDGE), round_=round_, profile="heartbench"
    )
    assert corrected["corrected_by"]["labelled_responses"] == EXAMPLES * 2
    rows = {row["system"]: row for row in corrected["rows"]}
    assert set(rows) == {MODEL, IDEAL}
    assert set(rows[MODEL]["abilities"]) == {
        "axis:accuracy",
        "axis:context_awareness",
        "axis:communication_quality",
    }
    assert rows[MODEL]["overall"]["corrected"] is not None, rows[MODEL]["overall"]
    path = tmp_path / "hb.zip"
    call_command("bundle", str(snapshot.pk), str(path))
    result = verify_bundle(io.BytesIO(path.read_bytes()))
    assert result.ok, result.problems
    assert LeaderboardSnapshot.objects.count() == 1


def test_the_grader_output_scores_under_the_healthbench_profile(benchmark, tmp_path, capsys):
    """healthbench_scores reads the imported run back and gives the scores of the grader
    output itself, per axis and per theme, at full precision."""
    rows = grader_output(MODEL)
    import_grader_output(tmp_path, MODEL, rows, capsys)
    graded = [
        GradedExample(
            example_id=row["prompt_id"],
            tags=(THEMES[int(row["prompt_id"].split("-")[1]) % 2],),
            criteria=tuple(
                GradedCriterion(points=i["points"], tags=tuple(i["tags"]), met=i["criteria_met"])
                for i in row["rubric_items"]
            ),
        )
        for row in rows
    ]
    expected = score_healthbench(graded, seed=3)
    call_command(
        "healthbench_scores", "--benchmark", "hb", "--judge", JUDGE, "--seed", "3", "--json"
    )
    out = json.loads(capsys.readouterr().out)
    assert (out["profile"], out["seed"], out["n_resamples"]) == ("healthbench", 3, 1000)
    assert (out["judge_version"]["config"], out["chosen_by"]) == (JUDGE, "judge")
    got = out["systems"][MODEL]

    def same(stat, reading):
        assert reading["mean"] == stat.mean.value
        assert reading["bootstrap_std"] == stat.bootstrap_std.value
        assert reading["n_samples"] == stat.n_samples

    same(expected.overall, got["overall"])
    assert (
        set(got["by_axis"])
        == set(expected.by_axis)
        == {
            "axis:accuracy",
            "axis:context_awareness",
            "axis:communication_quality",
        }
    )
    assert set(got["by_theme"]) == set(THEMES)
    for axis, stat in expected.by_axis.items():
        same(stat, got["by_axis"][axis])
    for theme, stat in expected.by_theme.items():
        same(stat, got["by_theme"][theme])
    assert 0 < got["overall"]["mean"] < 1 and got["overall"]["n_samples"] == EXAMPLES
    call_command("healthbench_scores", "--benchmark", "hb", "--judge", JUDGE)
    assert "axis:accuracy: " in capsys.readouterr().out


def test_grader_output_for_another_rubric_is_refused_by_line(benchmark, tmp_path, capsys):
    rows = grader_output(MODEL)
    rows[2]["rubric_items"][1]["criterion"] = "Recommends antibiotics."
    del rows[4]["rubric_items"][3]
    rows[5]["rubric_items"][0]["criteria_met"] = "yes"
    with pytest.raises(CommandError) as caught:
        import_grader_output(tmp_path, MODEL, rows, capsys)
    message = str(caught.value)
    assert "line 3, field 'rubric_items[1].criterion': criterion 2 reads" in message
    assert "line 5, field 'rubric_items': 3 verdicts for 4 criteria" in message
    assert "line 6, field 'rubric_items[0].criteria_met': must be true or false" in message
    assert not JudgeRun.objects.exists()
    assert not get_user_model().objects.filter(username="coord").exists()


def test_simple_evals_whole_run_file_imports_as_the_same_judgments(benchmark, tmp_path, capsys):
    examples = [
        {
            "score": 0.5,
            "usage": {"input_tokens": None},
            "rubric_items": row["rubric_items"],
            "prompt": [{"role": "user", "content": "…"}],
            "completion": [{"role": "assistant", "content": "…"}],
            "prompt_id": row["prompt_id"],
            "completion_id": "abc",
        }
        for row in grader_output(MODEL)
    ]
    document = {
        "score": 0.5,
        "metrics": {"overall_score": 0.5},
        "htmls": [""] * EXAMPLES,
        "convos": [[]] * EXAMPLES,
        "metadata": {"example_level_metadata": examples},
    }
    path = tmp_path / "healthbench_allresults.json"
    examples[1]["rubric_items"][0]["criteria_met"] = None
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
    arguments = ["--benchmark", "hb", "--system", MODEL, "--judge", JUDGE, "--format"]
    with pytest.raises(CommandError) as caught:
        call_command("import_judgments", str(path), *arguments, "healthbench")
    assert "line 2, field 'rubric_items[0].criteria_met'" in str(caught.value)
    assert "Nth graded example" in capsys.readouterr().err

    examples[1]["rubric_items"][0]["criteria_met"] = True
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
    call_command("import_judgments", str(path), *arguments, "healthbench", "--json")
    summary = json.loads(capsys.readouterr().out)
    assert (summary["tasks"], summary["verdicts"]) == (EXAMPLES, EXAMPLES * 4)
    hits = list(
        Verdict.objects.filter(task__case__external_id="hb-1")
        .order_by("criterion__position")
        .values_list("hit", flat=True)
    )
    assert hits == [True, *[truth(1, MODEL, p) for p in (2, 3, 4)]]
