"""HealthBench's example files import as they are released: prompt, rubrics with negative
points and tags, example tags, prompt ids and physicians' ideal completions."""

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.importing.healthbench import parse_healthbench
from annotation.importing.issues import RowInvalid
from annotation.models import Ability, Case, Category, Criterion, Response, System

pytestmark = pytest.mark.django_db


def healthbench_example(prompt_id: str = "hb-1", **overrides) -> dict:
    """One example in the released layout (written for these tests, not from the data)."""
    row = {
        "prompt": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "我胸口很痛，已经持续半小时了，怎么办？"},
        ],
        "completion": None,
        "rubrics": [
            {
                "criterion": "Advises calling emergency services immediately.",
                "points": 10,
                "tags": ["level:example", "axis:accuracy"],
            },
            {
                "criterion": "Asks whether the pain spreads to the arm or jaw.",
                "points": 5,
                "tags": ["level:example", "axis:context_awareness"],
            },
            {
                "criterion": "Suggests waiting to see whether the pain passes.",
                "points": -8,
                "tags": ["level:example", "axis:accuracy"],
            },
            {
                "criterion": "Uses plain language without jargon.",
                "points": 3,
                "tags": ["level:cluster", "cluster:emergent_tier", "axis:communication_quality"],
            },
        ],
        "example_tags": ["theme:emergency_referrals", "physician_agreed_category:emergent"],
        "prompt_id": prompt_id,
        "ideal_completions_data": {
            "ideal_completion": "请立即拨打 120。",
            "ideal_completions_group": "Group 1",
            "ideal_completions_ref_completions": ["ref a", "ref b"],
        },
    }
    row.update(overrides)
    return row


def write(tmp_path, rows, name="healthbench.jsonl"):
    path = tmp_path / name
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(path, *extra, capsys):
    capsys.readouterr()
    call_command(
        "import_benchmark",
        str(path),
        "--benchmark",
        "hb",
        "--format",
        "healthbench",
        "--json",
        *extra,
    )
    return json.loads(capsys.readouterr().out)


def test_the_released_layout_imports_as_cases_criteria_and_ideal_completions(tmp_path, capsys):
    second = healthbench_example(
        "hb-2", example_tags=["theme:global_health"], ideal_completions_data=None
    )
    summary = run(write(tmp_path, [healthbench_example(), second]), capsys=capsys)
    assert (summary["cases"], summary["criteria"], summary["responses"]) == (2, 8, 1)
    case = Case.objects.get(benchmark__slug="hb", external_id="hb-1")
    assert case.dialogue[1] == {"role": "user", "content": "我胸口很痛，已经持续半小时了，怎么办？"}
    assert case.difficulty == "normal"
    assert (case.scenario.primary, case.scenario.secondary) == (
        "theme:emergency_referrals",
        "physician_agreed_category:emergent",
    )
    criteria = Criterion.objects.filter(rubric_version__case=case).order_by("position")
    assert [(c.ability.label, c.weight) for c in criteria] == [
        ("axis:accuracy", 10),
        ("axis:context_awareness", 5),
        ("axis:accuracy", -8),
        ("axis:communication_quality", 3),
    ]
    assert not any(c.is_catastrophic for c in criteria)
    # Axes are abilities of the HealthBench category, named in both languages.
    accuracy = Ability.objects.get(label="axis:accuracy")
    assert (accuracy.category.code, accuracy.name_en, accuracy.name_zh) == (
        "healthbench",
        "Accuracy",
        "准确性",
    )
    ideal = Response.objects.get(case=case)
    assert ideal.system.name == "HealthBench ideal completion (Group 1)"
    assert ideal.system.kind == System.Kind.HUMAN and ideal.text == "请立即拨打 120。"
    assert any("cluster:*" in w for w in summary["warnings"])
    assert any("2 reference completions" in w for w in summary["warnings"])


def test_importing_the_same_file_again_adds_nothing(tmp_path, capsys):
    path = write(tmp_path, [healthbench_example()])
    run(path, capsys=capsys)
    again = run(path, capsys=capsys)
    assert (again["rubric_versions_created"], again["responses"]) == (0, 0)
    assert Response.objects.count() == 1


def test_the_hard_subset_is_given_its_difficulty_for_the_file(tmp_path, capsys):
    run(write(tmp_path, [healthbench_example()]), "--difficulty", "hard", capsys=capsys)
    assert Case.objects.get().difficulty == "hard"


def test_bad_lines_are_named_by_line_and_nothing_is_written(tmp_path, capsys):
    no_axis = healthbench_example("hb-3")
    no_axis["rubrics"][1]["tags"] = ["level:example"]
    rows = [
        healthbench_example("hb-1"),
        "{not json",
        no_axis,
        healthbench_example("hb-1"),
        healthbench_example("hb-5", example_tags=["theme:a", "theme:b"]),
    ]
    with pytest.raises(CommandError) as caught:
        run(write(tmp_path, rows), capsys=capsys)
    message = str(caught.value)
    assert "nothing was imported" in message
    assert "line 2: invalid JSON" in message
    assert "line 3, field 'rubrics[1].tags': needs exactly one axis tag" in message
    assert "line 4, field 'question_id': duplicate question_id 'hb-1'" in message
    assert "line 5, field 'example_tags': has 2 theme tags" in message
    assert not Case.objects.exists()
    assert not Response.objects.exists()
    assert not System.objects.filter(name__startswith="HealthBench").exists()
    assert not Category.objects.filter(code="healthbench").exists()


def test_a_changed_ideal_completion_is_refused_on_its_line(tmp_path, capsys):
    run(write(tmp_path, [healthbench_example()]), capsys=capsys)
    changed = healthbench_example()
    changed["ideal_completions_data"]["ideal_completion"] = "请先休息。"
    with pytest.raises(CommandError) as caught:
        run(write(tmp_path, [changed], "again.jsonl"), capsys=capsys)
    assert "line 1, field 'ideal_completions_data.ideal_completion'" in str(caught.value)
    assert Response.objects.get().text == "请立即拨打 120。"


def _with_rubric_change(**change) -> dict:
    row = healthbench_example()
    row["rubrics"][0].update(change)
    return row


@pytest.mark.parametrize(
    ("row", "field", "words"),
    [
        ({**healthbench_example(), "prompt_id": 7}, "prompt_id", "expected a string"),
        ({**healthbench_example(), "prompt_id": "a/b"}, "prompt_id", "must not contain '/'"),
        ({**healthbench_example(), "prompt": []}, "prompt", "must not be empty"),
        (_with_rubric_change(points=None), "rubrics[0].points", "not null"),
        (_with_rubric_change(points=11), "rubrics[0].points", "from -10 to 10"),
        (_with_rubric_change(points="5"), "rubrics[0].points", 'got string "5"'),
        (
            _with_rubric_change(tags=["axis:accuracy", "axis:accuracy"]),
            "rubrics[0].tags[1]",
            "given twice",
        ),
        (
            _with_rubric_change(tags=["axis:accuracy", "axis:completeness"]),
            "rubrics[0].tags",
            "exactly one axis tag",
        ),
        ({**healthbench_example(), "example_tags": "theme:x"}, "example_tags", "expected a list"),
        (
            {**healthbench_example(), "ideal_completions_data": {"ideal_completion": "x"}},
            "ideal_completions_data.ideal_completions_group",
            "missing",
        ),
        (
            {"question_id": "c1", "dialogue": [], "rubric": []},
            "prompt_id",
            "looks like a HeartBench question",
        ),
    ],
)
def test_a_bad_example_names_its_field(row, field, words):
    with pytest.raises(RowInvalid) as caught:
        parse_healthbench(row)
    assert caught.value.field == field
    assert words in str(caught.value.message)


def test_the_documented_example_and_grader_output_import_and_score_as_the_page_says(
    tmp_path, capsys
):
    text = (Path(settings.BASE_DIR) / "docs" / "formats.md").read_text(encoding="utf-8")
    section = text[text.index("## HealthBench format") :]
    blocks = [part.split("```", 1)[0].strip() for part in section.split("```json\n")[1:]]
    example, graded = (json.loads(block) for block in blocks[:2])
    summary = run(write(tmp_path, [example]), capsys=capsys)
    assert (summary["cases"], summary["criteria"], summary["responses"]) == (1, 3, 1)
    call_command(
        "import_responses",
        str(write(tmp_path, [{"question_id": "hb-0001", "response": "Call 120."}], "a.jsonl")),
        "--benchmark",
        "hb",
        "--system",
        "Some model",
    )
    call_command(
        "import_judgments",
        str(write(tmp_path, [graded], "graded.jsonl")),
        "--benchmark",
        "hb",
        "--system",
        "Some model",
        "--judge",
        "HealthBench grader",
        "--format",
        "healthbench",
    )
    capsys.readouterr()
    call_command("healthbench_scores", "--benchmark", "hb", "--json")
    scores = json.loads(capsys.readouterr().out)["systems"]["Some model"]
    assert scores["overall"]["mean"] == pytest.approx(10 / 15)
    assert set(scores["by_theme"]) == {"theme:emergency_referrals"}


def test_a_healthbench_dialogue_names_its_speakers_in_words(tmp_path, capsys, client, coordinator):
    row = healthbench_example()
    row["prompt"].insert(2, {"role": "assistant", "content": "请描述一下疼痛。"})
    row["prompt"].insert(3, {"role": "user", "content": "像压着一样。"})
    run(write(tmp_path, [row]), capsys=capsys)
    client.force_login(coordinator)
    page = client.get(reverse("case-detail", args=["hb", "hb-1"])).content.decode()
    speakers = re.findall(r'<span class="speaker">(.*?)</span>', page)
    assert speakers == [
        "System prompt",
        "User · person asking",
        "Assistant · earlier reply",
        "User · person asking",
    ]
