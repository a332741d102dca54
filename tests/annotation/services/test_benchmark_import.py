import pytest
from django.core.management import CommandError, call_command

from annotation.importing.issues import ImportRejected
from annotation.models import Ability, Benchmark, Case, Criterion, RubricVersion, Scenario
from annotation.services.benchmark_import import benchmark_import
from bench.synthetic_benchmark import question_rows
from core.models import AuditEvent
from tests.conftest import jsonl_bytes, lines, question, table_counts

pytestmark = pytest.mark.django_db


def run(rows, slug="hb", **kwargs):
    return benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug=slug, **kwargs)


def test_imports_cases_rubrics_and_scenarios():
    summary = run([question("c1"), question("c2", difficulty="hard", primary_scene="")])
    assert summary.as_dict() == {
        "cases": 2,
        "criteria": 8,
        "rubric_versions_created": 2,
        "responses": 0,
        "cases_created": 2,
        "cases_updated": 0,
        "warnings": [],
    }
    case = Case.objects.get(external_id="c2")
    assert case.difficulty == "hard"
    assert (case.scenario.primary, case.scenario.secondary) == ("", "工作压力")
    version = case.rubric_versions.get()
    criteria = list(version.criteria.order_by("position"))
    assert [c.weight for c in criteria] == [3, 4, -10, None]
    assert [c.is_catastrophic for c in criteria] == [False, False, False, True]
    assert criteria[0].ability.category.code == "emotion"
    assert Benchmark.objects.get(slug="hb").name == "hb"


def test_public_set_shape_gives_its_counts_and_reimport_creates_nothing():
    # The shape of HeartBench's question_all.jsonl: 296 cases, 3,114 criteria, 34 scenes.
    rows = list(question_rows(cases=296, criteria=3114, secondary_scenes=34))
    first = run(rows)
    assert (first.cases, first.criteria, first.rubric_versions_created) == (296, 3114, 296)
    assert Criterion.objects.count() == 3114
    assert Scenario.objects.values("secondary").distinct().count() == 34
    before = table_counts()
    second = run(rows)
    assert (second.cases, second.criteria, second.rubric_versions_created) == (296, 3114, 0)
    assert second.cases_created == 0
    assert table_counts() == before


def test_a_changed_rubric_adds_a_version_and_keeps_the_old_one():
    run([question("c1"), question("c2")])
    old = RubricVersion.objects.get(case__external_id="c1")
    old_texts = list(old.criteria.order_by("position").values_list("text", flat=True))
    changed = question("c1")
    changed["rubric"][0] = {"dimension": "情绪感知", "score": 5, "content": "准确说出用户的疲惫"}
    summary = run([changed, question("c2")])
    assert summary.rubric_versions_created == 1
    versions = list(RubricVersion.objects.filter(case__external_id="c1").order_by("number"))
    assert [v.number for v in versions] == [1, 2]
    assert versions[1].parent_id == versions[0].pk
    assert (
        list(versions[0].criteria.order_by("position").values_list("text", flat=True)) == old_texts
    )
    assert versions[1].criteria.get(position=1).text == "准确说出用户的疲惫"


def test_an_unknown_ability_is_kept_uncategorised_with_a_warning():
    row = question("c1")
    row["rubric"].append({"dimension": "创造力", "score": 2, "content": "提出新颖的视角"})
    summary = run([row])
    ability = Ability.objects.get(label="创造力")
    assert ability.category.code == "uncategorised"
    assert summary.warnings == [
        "line 1: ability label '创造力' is not in the taxonomy; kept under 'uncategorised'"
    ]


def test_rows_carrying_responses_are_imported_as_questions_with_a_warning():
    summary = run([{**question("c1"), "response": "你好"}])
    assert summary.cases == 1
    assert "import_responses" in summary.warnings[0]


def test_a_changed_difficulty_is_refused_unless_asked_for():
    run([question("c1")])
    with pytest.raises(ImportRejected, match="--change-difficulty"):
        run([question("c1", difficulty="hard")])
    assert Case.objects.get(external_id="c1").difficulty == "normal"
    summary = run([question("c1", difficulty="hard")], change_difficulty=True)
    assert Case.objects.get(external_id="c1").difficulty == "hard"
    assert summary.cases_updated == 1 and summary.rubric_versions_created == 0
    changed = AuditEvent.objects.get(details__has_key="difficulty_changed")
    assert changed.details["difficulty_changed"] == [{"case": "c1", "from": "normal", "to": "hard"}]


def test_relabelled_cases_keep_their_earlier_labels_in_the_log():
    """A difficulty changed on request and a scene changed by a re-import are each in the
    log with the label they replaced: the labels of any earlier moment are read from it."""
    from django.utils import timezone

    from annotation.selectors.case_history import case_labels_as_of

    run([question("c1"), question("c2")])
    before = timezone.now()
    run(
        [question("c1", difficulty="hard"), question("c2", primary_scene="亲密关系")],
        change_difficulty=True,
    )
    changed = AuditEvent.objects.get(details__has_key="scene_changed")
    assert changed.details["scene_changed"] == [
        {"case": "c2", "from": ["职场心理", "工作压力"], "to": ["亲密关系", "工作压力"]}
    ]
    assert changed.details["difficulty_changed"][0]["case"] == "c1"
    benchmark = Benchmark.objects.get(slug="hb")
    then = case_labels_as_of(benchmark=benchmark, when=before)
    assert then.difficulty_of("c1", "hard") == "normal"
    assert then.primary_of("c2", "亲密关系") == "职场心理"
    assert then.primary_of("c1", "职场心理") == "职场心理"
    now = case_labels_as_of(benchmark=benchmark, when=timezone.now())
    assert now.difficulty_of("c1", "hard") == "hard"


def test_the_difficulty_flag_does_not_relabel_existing_cases(tmp_path):
    """HeartBench's question_hard.jsonl imported with --difficulty normal on a benchmark
    that holds those cases as hard: refused, nothing changed, non-zero exit."""
    run([question("h1", difficulty="hard"), question("h2", difficulty="hard")])
    path = tmp_path / "question_hard.jsonl"
    rows = [{k: v for k, v in question(q).items() if k != "difficulty"} for q in ("h1", "h2")]
    path.write_bytes(jsonl_bytes(rows))
    with pytest.raises(CommandError, match="h1"):
        call_command("import_benchmark", str(path), "--benchmark", "hb", "--difficulty", "normal")
    assert set(Case.objects.values_list("difficulty", flat=True)) == {"hard"}
    call_command(
        "import_benchmark", str(path), "--benchmark", "hb", "--difficulty", "normal",
        "--change-difficulty",
    )  # fmt: skip
    assert set(Case.objects.values_list("difficulty", flat=True)) == {"normal"}


GOOD = question("ok1")


@pytest.mark.parametrize(
    ("second_line", "expected"),
    [
        (b"{not json", "line 2: invalid JSON"),
        ({**question("x"), "rubric": []}, "line 2, field 'rubric': must not be empty"),
        (
            {k: v for k, v in question("x").items() if k != "dialogue"},
            "line 2, field 'dialogue': missing",
        ),
        ({**question("x"), "question_id": 7}, "line 2, field 'question_id': expected a string"),
        (
            question("ok1"),
            "line 2, field 'question_id': duplicate question_id 'ok1' (first on line 1)",
        ),
        (
            {**question("x"), "rubric": [{"dimension": "温暖", "score": -11, "content": "t"}]},
            "line 2, field 'rubric[0].score': "
            "weight must be an integer from -10 to 10 or null, got -11",
        ),
        ('{"question_id": "x", "note": "\u4e2d"}'.encode("gbk"), "line 2: not valid UTF-8"),
    ],
)
def test_bad_input_names_line_and_field_and_writes_nothing(second_line, expected):
    run([question("existing")])
    before = table_counts()
    with pytest.raises(ImportRejected) as caught:
        run([GOOD, second_line, question("later")])
    assert expected in str(caught.value)
    assert table_counts() == before


def test_a_changed_dialogue_is_refused():
    run([question("c1")])
    before = table_counts()
    with pytest.raises(ImportRejected) as caught:
        run([question("c1", dialogue=[{"role": "A", "content": "另一段对话"}])])
    assert "line 1, field 'dialogue': case 'c1' already exists with a different dialogue" in str(
        caught.value
    )
    assert table_counts() == before


def test_errors_after_a_full_batch_still_roll_back_everything():
    rows = list(question_rows(cases=1200, criteria=4000))
    rows.append(b"[]")
    before = table_counts()
    with pytest.raises(ImportRejected) as caught:
        run(rows)
    assert "line 1201: expected a JSON object, got list" in str(caught.value)
    assert table_counts() == before


def test_every_error_is_counted_and_the_first_are_listed():
    rows = [b"{bad"] * 60
    with pytest.raises(ImportRejected) as caught:
        run(rows)
    assert caught.value.total == 60
    assert len(caught.value.errors) == ImportRejected.MAX_LISTED
    assert "... and 10 more errors" in str(caught.value)


def test_an_empty_file_is_rejected():
    with pytest.raises(ImportRejected, match="contains no cases"):
        benchmark_import(chunks=[b"\n"], benchmark_slug="hb")
    assert not Benchmark.objects.exists()


def test_rubric_versions_cannot_be_edited_in_place():
    from annotation.models import ImmutableRecordError

    run([question("c1")])
    version = RubricVersion.objects.get()
    version.note = "rewritten"
    with pytest.raises(ImmutableRecordError):
        version.save()
    criterion = version.criteria.first()
    criterion.text = "changed"
    with pytest.raises(ImmutableRecordError):
        criterion.save()
