"""The bundle of a board corrected by a round sampled where the judge is unsure: its frame
carries every response's recorded chance, drawn or not, and which were drawn, so
`verify_bundle` re-derives from the bundle alone (and without Django) the draw, the weights
and the corrected board the site shows. A chance changed in the bundle fails, naming the
response; the round's chances cannot change after it opened, so a later bundle of the
board is the same bundle."""

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.models import Assignment, Benchmark, ReviewItem, ReviewRound, System
from annotation.selectors.review import item_criteria
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import RoundInvalid, round_extend
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeRun, Verdict
from judging.services.judgments_import import judgments_import
from judging.services.uncertain_rounds import uncertain_round_open
from leaderboard.boards.selectors.runs import board_runs
from leaderboard.corrected.board import corrected_board
from leaderboard.evidence.selectors.pick import agreement_evidence
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.build import bundle_write
from leaderboard.exports.bundles.checks import same_tree
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.gate.services.evaluation import gate_evaluate, leaderboard_publish
from leaderboard.management.commands.load_demo import DEMO_DIR, DEMO_JUDGE, SYSTEMS
from tests.conftest import jsonl_bytes, lines
from tests.leaderboard.bundle_tools import load, read_files, store, write_files

ROUND = "不确定处抽样"
ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import json, sys
from leaderboard.exports.bundles.verify import verify_bundle
result = verify_bundle(sys.argv[1])
print(json.dumps({"ok": result.ok, "checks": result.as_dict()["checks"],
                  "django": "django" in sys.modules}))
"""


def _second_judge() -> tuple[JudgeRun, JudgeRun]:
    """Model Alpha's demo run, and a second judge that differs from it on 0 to 3 criteria of
    each response: Alpha's responses get unequal chances, the others the floor's."""
    rows = []
    with (DEMO_DIR / "judgments.model-alpha.zh.jsonl").open(encoding="utf-8") as source:
        for index, line in enumerate(source):
            row = json.loads(line)
            detail = [1 - h if k < index % 4 else h for k, h in enumerate(row["score_detail"])]
            rows.append({"question_id": row["question_id"], "score_detail": detail})
    judgments_import(
        chunks=lines(jsonl_bytes(rows)),
        benchmark_slug="demo",
        system_name="Model Alpha",
        judge_name="Second opinion",
    )
    second = JudgeRun.objects.latest("pk")
    first = JudgeRun.objects.get(
        judge_version__config__name=DEMO_JUDGE, systems__name="Model Alpha"
    )
    return first, second


def _vote(round_: ReviewRound) -> None:
    """Each expert rates every item, mostly as the judge did."""
    judged = {
        (response, criterion): hit
        for response, criterion, hit in Verdict.objects.filter(
            task__run__judge_version__config__name=DEMO_JUDGE
        ).values_list("task__response_id", "criterion_id", "hit")
    }
    rng = random.Random(29)
    for expert in round_.experts.order_by("pk"):
        while (a := assignment_next(expert=expert, round_=round_)) is not None:
            criteria = item_criteria(assignment=a)
            Assignment.objects.filter(pk=a.pk).update(assigned=a.assigned.replace(year=2000))
            votes = [
                VoteInput(c.pk, judged[(a.item.response_id, c.pk)] == (rng.random() < 0.85))
                for c in criteria
            ]
            assignment_submit(
                assignment=a, votes=votes, comment="", active_seconds=10, base_revision=0
            )


@pytest.fixture(scope="module")
def uncertain_bundle(django_db_setup, django_db_blocker):
    """The demo board published corrected by an uncertainty-design round; its bundle, the
    site's corrected board, the round's chances and items, and the bundle built again after
    an extension of the round was refused."""
    with django_db_blocker.unblock():
        call_command("load_demo")
        benchmark = Benchmark.objects.get(slug="demo")
        first, second = _second_judge()
        coordinator = get_user_model().objects.get(username="coordinator")
        round_ = uncertain_round_open(
            benchmark=benchmark,
            systems=list(System.objects.filter(name__in=[name for _, name, _ in SYSTEMS])),
            run=first,
            second=second,
            fraction=0.5,
            name=ROUND,
            experts=list(get_user_model().objects.filter(username__startswith="expert")),
            raters_per_item=3,
            seed=11,
            user=coordinator,
        )
        _vote(round_)
        # The judge is evaluated on the round too: the board rests on that evaluation.
        evaluation = gate_evaluate(
            evidence=agreement_evidence(benchmark=benchmark, round_ref=ROUND, judge=DEMO_JUDGE),
            user=coordinator,
        )
        board = board_runs(benchmark=benchmark, judge=DEMO_JUDGE)
        snapshot = leaderboard_publish(
            board=board, profile="heartbench", user=coordinator, corrected_by=round_
        )
        assert snapshot.gate_id == evaluation.pk
        site = corrected_board(board=board, round_=round_, profile="heartbench")
        chances = dict(round_.design_chances)
        items = dict(
            ReviewItem.objects.filter(round=round_).values_list(
                "response_id", "inclusion_probability"
            )
        )
        out = io.BytesIO()
        bundle_write(snapshot, out)
        refused = None
        try:
            round_extend(round_=round_, fraction=0.8, user=coordinator)
        except RoundInvalid as exc:
            refused = str(exc)
        round_.refresh_from_db()
        after = {
            "chances": round_.design_chances,
            "items": dict(
                ReviewItem.objects.filter(round=round_).values_list(
                    "response_id", "inclusion_probability"
                )
            ),
        }
        again = io.BytesIO()
        bundle_write(snapshot, again)
        call_command("flush", "--no-input")
    return {
        "blob": out.getvalue(),
        "site": site,
        "chances": chances,
        "items": items,
        "refused": refused,
        "after": after,
        "again": again.getvalue(),
        "prefix": layout.EVALUATION_DIR.format(id=evaluation.pk),
    }


def checks(blob: bytes) -> tuple[dict, list]:
    found = verify_bundle(io.BytesIO(blob)).as_dict()
    return {c["name"]: c for c in found["checks"]}, found["problems"]


def _frame(files) -> list[dict]:
    return layout.read_csv(files[layout.CORRECTED_FRAME])


@pytest.mark.django_db
def test_the_frame_carries_every_responses_chance_and_the_draw(uncertain_bundle):
    files = read_files(uncertain_bundle["blob"])
    chances, items = uncertain_bundle["chances"], uncertain_bundle["items"]
    assert len(set(chances.values())) > 2, "the design should give unequal chances"
    frame = _frame(files)
    # Every response the round could draw, drawn or not, with the chance it was given.
    assert {row["response"]: float(row["inclusion_probability"]) for row in frame} == chances
    assert {int(row["response"]) for row in frame if row["sampled"] == "1"} == set(items)
    assert any(row["sampled"] == "0" for row in frame)
    record = load(files, layout.CORRECTED)["corrected_by"]
    assert record["sampling_frame"]["method"] == "poisson"
    assert record["sampling"]["design"] == "uncertainty"
    # The weights are the chances the round recorded, for undrawn responses too.
    by_key = {(row["system"], row["question_id"]): row for row in frame}
    weights = layout.read_csv(files[layout.CORRECTED_WEIGHTS])
    assert len(weights) == 42
    for row in weights:
        chance = by_key[(row["system"], row["question_id"])]["inclusion_probability"]
        assert float(row["inclusion_probability"]) == float(chance)


@pytest.mark.django_db
def test_the_bundle_is_the_sites_corrected_board_and_every_check_passes(uncertain_bundle):
    files = read_files(uncertain_bundle["blob"])
    record, site = load(files, layout.CORRECTED), uncertain_bundle["site"]
    assert site["corrected_by"]["sampling"]["weighted"] is True
    for key in ("rows", "ranks", "bias_test"):
        assert same_tree(record[key], site[key]), key
    for key in ("sampled_responses", "labelled_responses", "not_labelled", "sampling"):
        assert record["corrected_by"][key] == site["corrected_by"][key], key
    found, problems = checks(uncertain_bundle["blob"])
    assert not problems
    assert {c["result"] for c in found.values()} <= {"pass", "skipped"}
    assert found["corrected_scores"]["result"] == "pass"
    assert found["sample"]["result"] == "pass"
    verified = verify_bundle(io.BytesIO(uncertain_bundle["blob"]))
    assert any("Poisson draw" in what and layout.CORRECTED_DIR in what for what in verified.checked)


@pytest.mark.django_db
def test_a_fresh_directory_without_django_re_derives_the_corrected_board(
    uncertain_bundle, tmp_path
):
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "bundle.zip").write_bytes(uncertain_bundle["blob"])
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, "bundle.zip"],
        cwd=fresh,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    out = json.loads(done.stdout)
    results = {check["name"]: check["result"] for check in out["checks"]}
    assert not out["django"]
    assert out["ok"], [check for check in out["checks"] if check["result"] == "fail"]
    assert results["corrected_scores"] == results["sample"] == "pass"


def _with_frame(blob: bytes, edit) -> tuple[dict, list, dict]:
    files = read_files(blob)
    frame = _frame(files)
    row = edit(frame)
    files[layout.CORRECTED_FRAME] = layout.csv_bytes(
        layout.FRAME_FIELDS, [[r[f] for f in layout.FRAME_FIELDS] for r in frame]
    )
    found, problems = checks(write_files(files))
    return found, problems, row


@pytest.mark.django_db
def test_a_changed_chance_of_an_undrawn_response_fails_naming_it(uncertain_bundle):
    def edit(frame):
        row = next(r for r in frame if r["sampled"] == "0" and r["system"] == "Model Alpha")
        row["inclusion_probability"] = str(float(row["inclusion_probability"]) / 2)
        return row

    found, problems, row = _with_frame(uncertain_bundle["blob"], edit)
    assert found["corrected_scores"]["result"] == "fail"
    named = [
        p["message"]
        for p in problems
        if p["check"] == "corrected_scores" and p["file"] == layout.CORRECTED_WEIGHTS
    ]
    assert any(row["system"] in m and row["question_id"] in m for m in named), problems


@pytest.mark.django_db
def test_a_changed_chance_of_a_drawn_response_fails_the_sample(uncertain_bundle):
    def edit(frame):
        row = next(
            r for r in frame if r["sampled"] == "1" and float(r["inclusion_probability"]) < 1
        )
        row["inclusion_probability"] = str(float(row["inclusion_probability"]) / 2)
        return row

    found, problems, row = _with_frame(uncertain_bundle["blob"], edit)
    assert found["sample"]["result"] == "fail"
    assert any(
        p["check"] == "sample"
        and p["file"] == layout.CORRECTED_FRAME
        and f"response {row['response']}" in p["message"]
        for p in problems
    ), problems
    assert found["corrected_scores"]["result"] == "fail"


@pytest.mark.django_db
def test_a_response_marked_drawn_that_is_no_item_fails_the_sample(uncertain_bundle):
    def edit(frame):
        row = next(r for r in frame if r["sampled"] == "0")
        row["sampled"] = "1"
        return row

    found, problems, row = _with_frame(uncertain_bundle["blob"], edit)
    assert found["sample"]["result"] == "fail"
    assert any(
        p["check"] == "sample"
        and p["file"] == layout.CORRECTED_FRAME
        and f"responses [{row['response']}] differ" in p["message"]
        for p in problems
    ), problems


@pytest.mark.django_db
def test_the_draw_is_re_derived_from_the_chances_and_the_seed(uncertain_bundle):
    """A forger who changes the recorded draw seed gives another draw: the sample fails."""
    files = read_files(uncertain_bundle["blob"])
    record = load(files, layout.CORRECTED)
    record["corrected_by"]["sampling_frame"]["batches"][0]["draw_seed"] += 1
    store(files, layout.CORRECTED, record)
    found, problems = checks(write_files(files))
    assert found["sample"]["result"] == "fail", problems
    assert any("Poisson draw" in p["message"] for p in problems if p["check"] == "sample")


@pytest.mark.django_db
def test_the_chances_cannot_change_after_the_round_opened(uncertain_bundle):
    """The chances are written once, when the round opens: an extension, the one service
    that draws again, is refused, and no form or serializer can edit them."""
    assert "cannot be extended" in uncertain_bundle["refused"]
    assert ReviewRound._meta.get_field("design_chances").editable is False
    assert uncertain_bundle["after"]["chances"] == uncertain_bundle["chances"]
    assert uncertain_bundle["after"]["items"] == uncertain_bundle["items"]
    # A later bundle of the same board is the same bundle.
    assert uncertain_bundle["again"] == uncertain_bundle["blob"]


@pytest.mark.django_db
def test_the_evaluation_on_the_round_re_derives_its_poisson_draw(uncertain_bundle):
    """The gate evaluation the board rests on read the same round: its frame is the same
    population with the same chances, and a chance changed there fails the sample."""
    blob, prefix = uncertain_bundle["blob"], uncertain_bundle["prefix"]
    files = read_files(blob)
    assert load(files, prefix + layout.EVALUATION)["sampling"]["method"] == "poisson"
    assert files[prefix + layout.FRAME] == files[layout.CORRECTED_FRAME]
    frame = layout.read_csv(files[prefix + layout.FRAME])
    row = next(r for r in frame if r["sampled"] == "1" and float(r["inclusion_probability"]) < 1)
    row["inclusion_probability"] = str(float(row["inclusion_probability"]) / 2)
    files[prefix + layout.FRAME] = layout.csv_bytes(
        layout.FRAME_FIELDS, [[r[f] for f in layout.FRAME_FIELDS] for r in frame]
    )
    found, problems = checks(write_files(files))
    assert found["sample"]["result"] == "fail"
    assert any(
        p["file"] == prefix + layout.FRAME and f"response {row['response']}:" in p["message"]
        for p in problems
    ), problems
