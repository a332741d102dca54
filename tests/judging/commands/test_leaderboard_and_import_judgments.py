"""The import_judgments and leaderboard commands, end to end through call_command."""

import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import System
from judging.models import JudgeConfig, JudgeRun, JudgeTask, Verdict
from tests.conftest import jsonl_bytes, question, table_counts

pytestmark = pytest.mark.django_db

SIX_CRITERIA = [
    *question()["rubric"][:3],
    {"dimension": "温暖", "score": 2, "content": "语气温和"},
    {"dimension": "情绪应对", "score": 5, "content": "帮助用户找到缓解压力的方法"},
    question()["rubric"][3],
]


def write(tmp_path, name: str, rows: list) -> str:
    path = tmp_path / name
    path.write_bytes(jsonl_bytes(rows))
    return str(path)


def scored(qid: str, detail: list, reason: str = "") -> dict:
    # Extra fields of a HeartBench scored file are ignored.
    return {"question_id": qid, "score_detail": detail, "score_reason": reason, "情绪感知": 50}


@pytest.fixture
def bench(tmp_path):
    """Cases c1 (normal) and c2 (hard) with the 4-criterion rubric; c3 has 6 criteria after
    a re-import, so its current version is its second one. Alpha answered all three."""
    path = write(tmp_path, "q.jsonl", [question("c1"), question("c2", difficulty="hard")])
    call_command("import_benchmark", path, "--benchmark", "hb")
    call_command(
        "import_benchmark", write(tmp_path, "q3.jsonl", [question("c3")]), "--benchmark", "hb"
    )
    changed = write(tmp_path, "q3b.jsonl", [question("c3", rubric=SIX_CRITERIA)])
    call_command("import_benchmark", changed, "--benchmark", "hb")
    answers = [{"question_id": q, "response": f"回答 {q}"} for q in ("c1", "c2", "c3")]
    call_command(
        "import_responses",
        write(tmp_path, "a.jsonl", answers),
        "--benchmark",
        "hb",
        "--system",
        "Alpha",
    )
    return tmp_path


def import_judgments(path: str, *extra: str, system: str = "Alpha", judge: str = "sonnet"):
    call_command(
        "import_judgments", path, "--benchmark", "hb", "--system", system, "--judge", judge, *extra
    )


GOOD = [
    scored("c1", [1, 0, 1, 0], "共情到位"),
    scored("c2", [True, True, False, False]),
    scored("c3", [1, 1, 0, 1, 1, 0]),
]


def test_import_judgments_json_prints_one_object_and_stores_one_finished_run(bench, capsys):
    capsys.readouterr()
    import_judgments(write(bench, "s.jsonl", GOOD), "--json")
    summary = json.loads(capsys.readouterr().out)
    run = JudgeRun.objects.get()
    assert summary == {"run": run.pk, "tasks": 3, "verdicts": 4 + 4 + 6, "warnings": []}
    assert (run.source, run.status) == (JudgeRun.Source.IMPORTED, JudgeRun.Status.FINISHED)
    assert run.finished is not None and run.prompt is None
    assert list(run.systems.values_list("name", flat=True)) == ["Alpha"]
    config = JudgeConfig.objects.get(name="sonnet")
    version = config.current_version
    assert (version.model, version.base_url, version.prompt, version.source) == (
        "sonnet",
        "",
        None,
        "imported",
    )
    assert run.config == config and run.judge_version == version and not config.is_simulated
    task = run.tasks.get(response__case__external_id="c1")
    assert (task.status, task.reasoning) == (JudgeTask.Status.DONE, "共情到位")
    hits = list(task.verdicts.order_by("criterion__position").values_list("hit", flat=True))
    assert hits == [True, False, True, False]
    c3 = run.tasks.get(response__case__external_id="c3")
    assert c3.rubric_version.number == 2  # the case's current version
    assert c3.verdicts.count() == 6


def test_a_second_import_reuses_the_judge_and_warns_about_unjudged_responses(bench, capsys):
    import_judgments(write(bench, "s.jsonl", GOOD))
    capsys.readouterr()
    import_judgments(write(bench, "s2.jsonl", GOOD[:1]), "--json")
    summary = json.loads(capsys.readouterr().out)
    assert summary["tasks"] == 1 and summary["verdicts"] == 4
    assert summary["warnings"] == [
        "2 of the 3 responses of system 'Alpha' have no judgment in the file; "
        "they are not in this run"
    ]
    assert JudgeConfig.objects.count() == 1 and JudgeRun.objects.count() == 2


BAD_FILES = [
    pytest.param([GOOD[0], "{not json"], "line 2: invalid JSON", id="invalid-json"),
    pytest.param([GOOD[0], b"\xff\xfe"], "line 2: not valid UTF-8", id="not-utf8"),
    pytest.param(
        [GOOD[0], scored("zz", [1])],
        "line 2, field 'question_id': unknown question_id 'zz'",
        id="unknown-question",
    ),
    pytest.param(
        [GOOD[0], GOOD[0]],
        "line 2, field 'question_id': duplicate question_id 'c1' (first on line 1)",
        id="duplicate",
    ),
    pytest.param(
        [{"question_id": "c1", "score_reason": "x"}],
        "line 1, field 'score_detail': missing",
        id="missing-score-detail",
    ),
    pytest.param(
        [scored("c1", "1010")],
        "line 1, field 'score_detail': expected a list of 0/1 (or the official scorer's "
        "text of one, such as \"[1, 0, 1]\"), got '1010'",
        id="score-detail-not-a-list",
    ),
    pytest.param(
        [scored("c1", "[1, 0, __import__('os')]")],
        "line 1, field 'score_detail': expected a list of 0/1 (or the official scorer's "
        'text of one, such as "[1, 0, 1]"), got "[1, 0, __import__(\'os\')]"',
        id="score-detail-code",
    ),
    pytest.param(
        [scored("c1", "[1, 2, 1, 0]")],
        "line 1, field 'score_detail': expected a list of 0/1 (or the official scorer's "
        "text of one, such as \"[1, 0, 1]\"), got '[1, 2, 1, 0]'",
        id="score-detail-text-not-0-or-1",
    ),
    pytest.param(
        [GOOD[0], GOOD[1], scored("c3", [1, 1, 0, 1, 1])],
        "line 3, field 'score_detail': 5 verdicts for 6 criteria; not padded or truncated",
        id="too-short-for-current-version",
    ),
    pytest.param(
        [scored("c1", [1, 0, 1, 0, 0])],
        "line 1, field 'score_detail': 5 verdicts for 4 criteria; not padded or truncated",
        id="too-long",
    ),
    pytest.param(
        [scored("c1", [1, 2, 1, 0])],
        "line 1, field 'score_detail[1]': a verdict must be 0, 1, true or false, got 2",
        id="not-0-or-1",
    ),
    pytest.param(
        [scored("c1", [1, "1", 1, 0])],
        "line 1, field 'score_detail[1]': a verdict must be 0, 1, true or false, got string",
        id="string-verdict",
    ),
    pytest.param(
        [scored("c1", [1, 1.0, 1, 0])],
        "line 1, field 'score_detail[1]': a verdict must be 0, 1, true or false, got 1.0",
        id="float-verdict",
    ),
    pytest.param(
        [{"question_id": "c1", "score_detail": [1, 0, 1, 0], "score_reason": 3}],
        "line 1, field 'score_reason': expected a string, got integer",
        id="reason-not-a-string",
    ),
    pytest.param(["[1, 0]"], "line 1: expected a JSON object, got list", id="not-an-object"),
    pytest.param([""], "the file contains no judgments", id="empty-file"),
]


@pytest.mark.parametrize(("rows", "message"), BAD_FILES)
def test_a_bad_judgments_file_writes_nothing_and_names_the_problem(bench, rows, message):
    path = write(bench, "bad.jsonl", rows)
    before = table_counts()
    with pytest.raises(CommandError) as caught:
        import_judgments(path, judge="new-judge")
    assert "nothing was imported" in str(caught.value)
    assert message in str(caught.value)
    assert table_counts() == before
    assert not JudgeConfig.objects.filter(name="new-judge").exists()


def test_every_bad_line_is_reported_at_once(bench, capsys):
    rows = [scored("c1", [1]), "oops", scored("zz", [1]), GOOD[1], scored("c2", [1, 0, 1, 0])]
    before = table_counts()
    with pytest.raises(CommandError) as caught:
        import_judgments(write(bench, "bad.jsonl", rows), "--json")
    text = str(caught.value)
    for expected in (
        "line 1, field 'score_detail': 1 verdicts for 4 criteria",
        "line 2: invalid JSON",
        "line 3, field 'question_id': unknown question_id 'zz'",
        "line 5, field 'question_id': duplicate question_id 'c2' (first on line 4)",
    ):
        assert expected in text
    printed = json.loads(capsys.readouterr().out)
    assert printed["error"] == "rejected" and printed["total"] == 4
    assert table_counts() == before


def test_the_official_scorers_text_of_a_list_is_read_as_the_list(bench, capsys):
    """HeartBench's own scorer writes `score_detail` as str() of a Python list; such a file
    imports as it is, read as text and never evaluated."""
    official = [
        scored("c1", "[1, 0, 1, 0]"),
        scored("c2", "[1,1,0,0]"),
        scored("c3", " [1, 1, 0, 1, 1, 0] "),
    ]
    import_judgments(write(bench, "official.jsonl", official), "--json")
    summary = json.loads(capsys.readouterr().out)
    assert (summary["tasks"], summary["verdicts"]) == (3, 14)
    hits = list(
        Verdict.objects.filter(task__response__case__external_id="c2")
        .order_by("criterion__position")
        .values_list("hit", flat=True)
    )
    assert hits == [True, True, False, False]


def test_a_case_the_system_did_not_answer_is_an_error(bench):
    call_command(
        "import_responses",
        write(bench, "b.jsonl", [{"question_id": "c1", "response": "嗯"}]),
        "--benchmark",
        "hb",
        "--system",
        "Beta",
    )
    before = table_counts()
    with pytest.raises(CommandError, match="line 2, field 'question_id': system 'Beta' has no"):
        import_judgments(write(bench, "s.jsonl", GOOD[:2]), system="Beta")
    assert table_counts() == before


def test_unknown_system_and_benchmark_are_named(bench):
    path = write(bench, "s.jsonl", GOOD)
    before = table_counts()
    with pytest.raises(CommandError, match="no system named 'Nobody'"):
        import_judgments(path, system="Nobody")
    with pytest.raises(CommandError, match="no benchmark with slug 'nope'"):
        call_command(
            "import_judgments", path, "--benchmark", "nope", "--system", "Alpha", "--judge", "j"
        )
    assert table_counts() == before


# --- leaderboard ---------------------------------------------------------------------------


def leaderboard(capsys, *args: str) -> str:
    capsys.readouterr()
    call_command("leaderboard", "--benchmark", "hb", *args)
    return capsys.readouterr().out


def test_leaderboard_json_prints_one_object_for_the_latest_run(bench, capsys):
    import_judgments(write(bench, "s.jsonl", GOOD))
    run = JudgeRun.objects.get()
    printed = json.loads(leaderboard(capsys, "--json"))
    assert set(printed) == {
        "benchmark",
        "runs",
        "judge_version",
        "rubric_versions",
        "profile",
        "produced_by",
        "systems",
    }
    assert (printed["benchmark"], printed["runs"], printed["profile"]) == (
        "hb",
        [run.pk],
        "heartbench",
    )
    assert printed["judge_version"] == {
        "config": "sonnet",
        "number": 1,
        "fingerprint": run.judge_version.fingerprint,
        "settings": {**run.judge_version.settings(), "prompt": None},
    }
    assert printed["rubric_versions"] == {"c1": 1, "c2": 1, "c3": 2}
    [row] = printed["systems"]
    assert set(row) == {
        "system",
        "kind",
        "is_human",
        "overall",
        "overall_95",
        "bootstrap",
        "normal",
        "hard",
        "relative_decline",
        "abilities",
        "ability_cases",
        "categories",
        "scenes",
        "scene_cases",
        "cases_scored",
        "cases_failed",
        "undefined",
    }
    assert (row["system"], row["kind"], row["cases_scored"], row["cases_failed"]) == (
        "Alpha",
        "llm",
        3,
        0,
    )
    # Labels as imported, in taxonomy order; 其他 is never an ability score.
    assert list(row["abilities"]) == ["言语表达", "好奇心", "温暖", "情绪应对", "情绪感知"]
    assert set(row["categories"]) == {"Personality", "Emotion"}
    assert row["undefined"] == {}


def test_leaderboard_profile_changes_only_catastrophic_cases(bench, capsys):
    # c1 hits 其他 (weight null): the paper's rule zeroes c1, the released code's does not.
    import_judgments(write(bench, "s.jsonl", [scored("c1", [1, 1, 0, 1]), *GOOD[1:]]))
    paper = json.loads(leaderboard(capsys, "--json"))["systems"][0]
    code = json.loads(leaderboard(capsys, "--json", "--profile", "heartbench-code"))
    code = code["systems"][0]
    # 情绪感知 is hit in c1, c2 and c3 (100 each); under heartbench c1 counts 0 instead, so
    # (0 + 100 + 100) / 3 = 66.67. The normal score (c1, c3) drops; the hard one (c2) does not.
    assert paper["abilities"]["情绪感知"] == pytest.approx(200 / 3, abs=1e-12)
    assert code["abilities"]["情绪感知"] == 100.0
    assert paper["normal"] < code["normal"]
    assert paper["hard"] == code["hard"]  # c2 has no catastrophic hit


def test_leaderboard_run_option_and_table_format(bench, capsys):
    import_judgments(write(bench, "s.jsonl", GOOD))
    first = JudgeRun.objects.get()
    import_judgments(write(bench, "s2.jsonl", GOOD[:1]), judge="other")
    assert json.loads(leaderboard(capsys, "--json"))["runs"] != [first.pk]
    chosen = json.loads(leaderboard(capsys, "--json", "--run", str(first.pk)))
    assert chosen["runs"] == [first.pk] and chosen["systems"][0]["cases_scored"] == 3

    System.objects.filter(name="Alpha").update(kind=System.Kind.HUMAN)
    table = leaderboard(capsys, "--run", str(first.pk))
    assert f"Benchmark hb, sonnet v1, runs {first.pk}, profile heartbench" in table
    assert "Alpha" in table and "human" in table and "言语表达" in table and "Personality" in table


def test_leaderboard_table_shows_failed_cases_and_undefined_scores(bench, capsys):
    import_judgments(write(bench, "s.jsonl", [GOOD[0], GOOD[2]]))
    run = JudgeRun.objects.get()
    c2 = run.systems.get().responses.get(case__external_id="c2")
    JudgeTask.objects.create(
        run=run,
        case=c2.case,
        system=c2.system,
        response=c2,
        rubric_version=c2.case.rubric_versions.get(),
        status="failed",
    )
    table = leaderboard(capsys)
    header, alpha = (line.split() for line in table.splitlines()[2:4])
    assert header[-2:] == ["scored", "failed"] and alpha[-2:] == ["2", "1"]
    assert "Alpha: hard: no hard cases were scored" in table
    assert Verdict.objects.filter(task__status="failed").count() == 0


def test_leaderboard_errors_are_clear(bench, capsys):
    with pytest.raises(CommandError, match="no benchmark with slug 'nope'"):
        call_command("leaderboard", "--benchmark", "nope", "--json")
    with pytest.raises(CommandError, match="This benchmark has no finished judge run yet"):
        leaderboard(capsys, "--json")
    import_judgments(write(bench, "s.jsonl", GOOD))
    with pytest.raises(CommandError, match="No judge run #9999 in this benchmark"):
        leaderboard(capsys, "--run", "9999", "--json")
    with pytest.raises(CommandError, match="--run takes run ids"):
        leaderboard(capsys, "--run", "newest", "--json")
    with pytest.raises(CommandError, match="No judge named nobody"):
        leaderboard(capsys, "--judge", "nobody", "--json")
    call_command("import_benchmark", write(bench, "o.jsonl", [question("c1")]), "--benchmark", "o")
    answers = write(bench, "oa.jsonl", [{"question_id": "c1", "response": "好"}])
    call_command("import_responses", answers, "--benchmark", "o", "--system", "Alpha")
    call_command(
        "import_judgments",
        write(bench, "os.jsonl", GOOD[:1]),
        "--benchmark",
        "o",
        "--system",
        "Alpha",
        "--judge",
        "sonnet",
    )
    other = JudgeRun.objects.get(benchmark__slug="o")
    with pytest.raises(CommandError, match=f"No judge run #{other.pk} in this benchmark"):
        leaderboard(capsys, "--run", str(other.pk), "--json")
    JudgeRun.objects.update(status=JudgeRun.Status.CANCELLED)
    with pytest.raises(CommandError, match="no finished judge run"):
        leaderboard(capsys)
