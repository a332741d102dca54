"""import_inspect: an Inspect AI eval log of a judging task becomes a judge run whose
verdicts are the log's scores.

The logs in inspect_logs/ were written by `write_log` below through inspect_ai's own API
(inspect-ai is not a test requirement: it brings about 180 MB). Where inspect_ai is
installed, the tests also write fresh logs with it and read the expected scores back with
its own reader."""

import json
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.importing.issues import ImportRejected
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from judging.interop.inspect_import import inspect_log_import
from judging.models import JudgeRun, Verdict
from tests.conftest import jsonl_bytes, lines, question, table_counts

pytestmark = pytest.mark.django_db

LOGS = Path(__file__).parent / "inspect_logs"
# The judge's verdicts the logs record, per (question_id, system), criteria 1..4.
VERDICTS = {("c1", "Sys"): [1, 1, 1, 0], ("c2", "Sys"): [0, 0, 1, 1]}


def write_log(fmt: str, log_dir: Path) -> Path:
    """A judging task run with inspect_ai: each sample a response, its score the verdict
    per criterion position; the model is Inspect's mock model (no call is made)."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
    from inspect_ai.solver import TaskState, solver

    @solver
    def read_reply():
        async def solve(state, generate):
            return state

        return solve

    @scorer(metrics=[accuracy()])
    def rubric_grader():
        async def score(state: TaskState, target: Target) -> Score:
            key = (state.metadata["question_id"], state.metadata["system"])
            return Score(
                value={
                    str(i + 1): CORRECT if h else INCORRECT for i, h in enumerate(VERDICTS[key])
                },
                explanation=f"graded {key[0]}",
            )

        return score

    task = Task(
        dataset=[
            Sample(
                input=f"Judge the response to {q}",
                id=f"{q}/{s}",
                metadata={"question_id": q, "system": s},
            )
            for q, s in VERDICTS
        ],
        solver=read_reply(),
        scorer=rubric_grader(),
        name="concord-judge",
    )
    (log,) = inspect_eval(
        task,
        model="mockllm/model",
        log_dir=str(log_dir),
        log_format=fmt,
        display="none",
        temperature=0.0,
        seed=7,
        max_tokens=512,
    )
    return Path(log.location)


@pytest.fixture
def benchmark():
    benchmark_import(
        chunks=lines(jsonl_bytes([question("c1"), question("c2")])), benchmark_slug="hb"
    )
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": q, "response": "嗯"} for q in ("c1", "c2")])),
        benchmark_slug="hb",
        system_name="Sys",
    )


@pytest.fixture(
    params=[("json", "stored"), ("eval", "stored"), ("json", "fresh"), ("eval", "fresh")],
    ids=lambda p: f"{p[1]}-{p[0]}",
)
def log_file(request, tmp_path, monkeypatch) -> Path:
    fmt, source = request.param
    if source == "stored":
        path = tmp_path / f"log.{fmt}"
        shutil.copy(LOGS / f"rubric_grader.{fmt}", path)
        return path
    pytest.importorskip("inspect_ai")
    monkeypatch.setenv("HOME", str(tmp_path))  # inspect_ai's own files stay in the test's folder
    return in_own_thread(write_log, fmt, tmp_path / "logs")


def in_own_thread(function, *args):
    """inspect_ai runs an event loop of its own, which Python refuses inside a running one; a
    browser test before this one in the same process leaves Playwright's loop running here."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args).result()


def run_verdicts(run: JudgeRun) -> dict[tuple, list[int]]:
    found: dict[tuple, dict[int, int]] = {}
    for qid, system, position, hit in Verdict.objects.filter(task__run=run).values_list(
        "task__case__external_id", "task__system__name", "criterion__position", "hit"
    ):
        found.setdefault((qid, system), {})[position] = int(hit)
    return {key: [by[p] for p in sorted(by)] for key, by in found.items()}


def test_an_inspect_log_imports_as_a_run_whose_verdicts_are_its_scores(benchmark, log_file):
    call_command("import_inspect", str(log_file), "--benchmark", "hb", "--judge", "inspect judge")
    run = JudgeRun.objects.get()
    assert run.source == JudgeRun.Source.IMPORTED and run.status == JudgeRun.Status.FINISHED
    assert run_verdicts(run) == VERDICTS
    version = run.judge_version
    assert (version.model, version.temperature, version.seed, version.max_output_tokens) == (
        "mockllm/model",
        0.0,
        7,
        512,
    )
    assert version.label == "inspect judge v1"
    record = run.settings_snapshot["inspect"]
    assert record["task"] == "concord-judge" and record["scorer"] == "rubric_grader"
    assert record["generate_config"] == {"max_tokens": 512, "temperature": 0.0, "seed": 7}
    assert set(run.systems.values_list("name", flat=True)) == {"Sys"}
    reasons = set(run.tasks.values_list("reasoning", flat=True))
    assert reasons == {"graded c1", "graded c2"}


def test_the_verdicts_equal_the_scores_inspect_itself_reads(benchmark, tmp_path, monkeypatch):
    log_module = pytest.importorskip("inspect_ai.log")
    monkeypatch.setenv("HOME", str(tmp_path))
    path = in_own_thread(write_log, "eval", tmp_path / "logs")
    log = in_own_thread(log_module.read_eval_log, str(path))
    expected = {
        (s.metadata["question_id"], s.metadata["system"]): [
            1 if s.scores["rubric_grader"].value[str(p)] == "C" else 0 for p in (1, 2, 3, 4)
        ]
        for s in log.samples
    }
    inspect_log_import(data=path.read_bytes(), benchmark_slug="hb", judge_name="j")
    assert run_verdicts(JudgeRun.objects.get()) == expected


def _with_samples(edit) -> bytes:
    log = json.loads((LOGS / "rubric_grader.json").read_text(encoding="utf-8"))
    edit(log)
    return json.dumps(log).encode()


def test_a_bad_log_names_each_sample_and_writes_nothing(benchmark):
    def edit(log):
        log["samples"][0]["scores"]["rubric_grader"]["value"]["2"] = "P"
        del log["samples"][1]["scores"]["rubric_grader"]["value"]["4"]  # 3 verdicts for 4

    before = table_counts()
    with pytest.raises(ImportRejected) as caught:
        inspect_log_import(data=_with_samples(edit), benchmark_slug="hb", judge_name="j")
    assert [str(issue) for issue in caught.value.errors] == [
        "line 1, field 'scores.rubric_grader.value.2': a verdict must be 'C', 'I', 1, 0, "
        "true or false, got 'P'",
        "line 2, field 'score_detail': 3 verdicts for 4 criteria; not padded or truncated",
    ]
    assert table_counts() == before


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda log: log.update(status="error"), "the evaluation's status is 'error'"),
        (lambda log: log.pop("samples"), "the log holds no samples"),
        (
            lambda log: log["samples"][0]["metadata"].update(system="Other"),
            "line 1, field 'metadata.system': unknown system 'Other'",
        ),
        (
            lambda log: log["samples"][1]["metadata"].update(question_id="c9"),
            "line 2, field 'question_id': unknown question_id 'c9'",
        ),
        (
            lambda log: log["samples"][0]["scores"].update(other={"value": 1}),
            "line 1, field 'scores': several scorers (other, rubric_grader): name one (--scorer)",
        ),
    ],
)
def test_what_is_refused_is_named(benchmark, edit, message):
    with pytest.raises(ImportRejected, match=re.escape(message)):
        inspect_log_import(data=_with_samples(edit), benchmark_slug="hb", judge_name="j")
    assert not JudgeRun.objects.exists()


def test_the_command_refuses_what_is_no_log(benchmark, tmp_path):
    bad = tmp_path / "x.eval"
    bad.write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(
        CommandError, match=re.escape("nothing was imported.\nnot readable as an Inspect")
    ):
        call_command("import_inspect", str(bad), "--benchmark", "hb", "--judge", "j")
    with pytest.raises(CommandError, match="no benchmark with slug 'nope'"):
        call_command("import_inspect", str(bad), "--benchmark", "nope", "--judge", "j")
