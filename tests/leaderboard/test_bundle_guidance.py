"""The bundle carries what the experts read while they voted (the guidelines, the FAQ and
the worked examples, each version current between the round's opening and the evaluation)
and the raters' calibration results under their pseudonyms; verify_bundle checks both."""

import datetime as dt
import io
import json

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Ability, RaterPseudonym, ReviewItem, ReviewRound, Vote
from annotation.selectors.review import item_criteria
from annotation.services.guidance import faq_entry_delete, faq_entry_save, worked_example_save
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import guideline_save, round_open
from annotation.services.review_votes import VoteInput, assignment_submit, reference_answers_set
from core.models import AuditEvent
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.build import bundle_write
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.models import LeaderboardSnapshot
from tests.leaderboard.bundle_tools import load, read_files, store, write_files

pytestmark = pytest.mark.django_db


def _at(when) -> None:
    """Place the newest audit event at `when`, as if the save had happened then."""
    newest = AuditEvent.objects.order_by("-pk").first()
    AuditEvent.objects.filter(pk=newest.pk).update(created=when)


def _build(snapshot) -> bytes:
    out = io.BytesIO()
    bundle_write(snapshot, out)
    return out.getvalue()


def _checks(data: bytes, result: str) -> set[str]:
    summary = verify_bundle(io.BytesIO(data)).as_dict()
    return {check["name"] for check in summary["checks"] if check["result"] == result}


@pytest.fixture
def published(demo_loaded):
    snapshot = LeaderboardSnapshot.objects.get()
    return snapshot, get_user_model().objects.get(username="coordinator")


def test_the_guidance_as_the_experts_saw_it_is_in_the_bundle_and_checked(published):
    snapshot, coordinator = published
    benchmark = snapshot.benchmark
    opened, recorded = snapshot.gate.round.created, snapshot.gate.created
    during = opened + (recorded - opened) / 2
    before = opened - dt.timedelta(days=3)
    guideline_save(benchmark=benchmark, text="第一版：逐条判断。", user=coordinator)
    _at(before)
    guideline_save(benchmark=benchmark, text="第二版：逐条判断，看回复本身。", user=coordinator)
    _at(during)
    # Changed after the evaluation: not what the experts read.
    guideline_save(benchmark=benchmark, text="第三版。", user=coordinator)
    ability = Ability.objects.filter(criteria__rubric_version__case__benchmark=benchmark).first()
    kept = faq_entry_save(
        benchmark=benchmark,
        entry=None,
        question="共情算符合吗？",
        answer="要有具体回应。",
        abilities=[ability],
        user=coordinator,
    )
    _at(before)
    faq_entry_save(
        benchmark=benchmark,
        entry=kept,
        question="共情算符合吗？",
        answer="改过的回答。",
        abilities=[ability],
        user=coordinator,
    )
    gone = faq_entry_save(
        benchmark=benchmark, entry=None, question="旧问题", answer="旧回答", abilities=[], user=None
    )
    _at(before - dt.timedelta(days=1))
    faq_entry_delete(entry=gone, user=coordinator)
    _at(before)
    example = worked_example_save(
        benchmark=benchmark,
        example=None,
        ability=ability,
        title="示例",
        body="这样判断。",
        user=coordinator,
    )
    _at(during)

    data = _build(snapshot)
    files = read_files(data)
    manifest = json.loads(files[layout.MANIFEST])
    assert not any("guidelines" in reason for reason in manifest["left_out"])
    guidance = load(files, layout.GUIDANCE)
    versions = {
        (doc["kind"], version["version"]): version
        for doc in guidance["documents"]
        for version in doc["versions"]
    }
    assert {
        key: v["content"].get("text") for key, v in versions.items() if key[0] == "guideline"
    } == {
        ("guideline", 1): "第一版：逐条判断。",
        ("guideline", 2): "第二版：逐条判断，看回复本身。",
    }
    faq = [v["content"] for key, v in versions.items() if key[0] == "faq"]
    assert faq == [
        {
            "question": "共情算符合吗？",
            "answer": "要有具体回应。",
            "abilities": [ability.label],
            "criteria": [],
        }
    ]
    assert [v["content"]["title"] for key, v in versions.items() if key[0] == "example"] == ["示例"]
    assert set(manifest["guidance"]) == {v["id"] for v in versions.values()}
    assert "guidance" in _checks(data, "pass") and verify_bundle(io.BytesIO(data)).ok
    # What happens after the board was published changes nothing in its bundle.
    guideline_save(benchmark=benchmark, text="第四版。", user=coordinator)
    worked_example_save(
        benchmark=benchmark,
        example=example,
        ability=ability,
        title="示例",
        body="改过。",
        user=coordinator,
    )
    assert read_files(_build(snapshot))[layout.GUIDANCE] == files[layout.GUIDANCE]

    # The guideline as they read it, edited and the file list rewritten: its own check fails.
    doc = next(d for d in guidance["documents"] if d["kind"] == "guideline")
    doc["versions"][1]["content"]["text"] = "第二版：只看关键词。"
    store(files, layout.GUIDANCE, guidance)
    assert _checks(write_files(files), "fail") == {"guidance"}
    # A version removed from the file (and its digest kept in the manifest): fails too.
    doc["versions"] = doc["versions"][:1]
    store(files, layout.GUIDANCE, guidance)
    assert "guidance" in _checks(write_files(files), "fail")


def test_the_guidance_file_removed_fails_its_check(published):
    snapshot, coordinator = published
    guideline_save(benchmark=snapshot.benchmark, text="准则", user=coordinator)
    _at(snapshot.gate.round.created - dt.timedelta(days=1))
    files = read_files(_build(snapshot))
    del files[layout.GUIDANCE]
    assert "guidance" in _checks(write_files(files), "fail")


def _calibration_round(snapshot, raters) -> ReviewRound:
    """A calibration round the validation round's raters took before the board was
    published: its first item a reference item, every item rated by everyone."""
    round_ = round_open(
        benchmark=snapshot.benchmark,
        name="Calibration",
        systems=list(snapshot.gate.round.systems.all()),
        experts=raters,
        fraction=0.05,
        raters_per_item=len(raters),
        is_calibration=True,
    )
    reference = round_.items.order_by("hand_out_rank", "pk").first()
    criteria = list(reference.rubric_version.criteria.order_by("position"))
    reference_answers_set(
        item=reference,
        answers={c.pk: (c.position % 2 == 0, f"因为{c.position}") for c in criteria},
    )
    for n, expert in enumerate(raters):
        while (assignment := assignment_next(expert=expert, round_=round_)) is not None:
            assignment_submit(
                assignment=assignment,
                # The first rater agrees with every reference answer, the others with none.
                votes=[
                    VoteInput(c.pk, (c.position % 2 == 0) == (n == 0), "")
                    for c in item_criteria(assignment=assignment)
                ],
                comment="",
                active_seconds=60,
                base_revision=assignment.revision,
            )
    earlier = snapshot.created - dt.timedelta(hours=1)
    ReviewRound.objects.filter(pk=round_.pk).update(created=earlier)
    Vote.objects.filter(assignment__item__round=round_).update(created=earlier)
    # The reference answers were set before the board was published too.
    AuditEvent.objects.filter(details__round=round_.name).update(created=earlier)
    return round_


def test_the_raters_calibration_results_are_in_the_bundle_under_pseudonyms(published):
    snapshot, _ = published
    evaluated = snapshot.gate.round
    raters = list(
        get_user_model()
        .objects.filter(assignments__item__round=evaluated)
        .distinct()
        .order_by("username")
    )
    round_ = _calibration_round(snapshot, raters)
    data = _build(snapshot)
    files = read_files(data)
    manifest = json.loads(files[layout.MANIFEST])
    assert not any("calibration" in reason for reason in manifest["left_out"])
    calibration = load(files, layout.CALIBRATION)
    names = dict(
        RaterPseudonym.objects.filter(benchmark=snapshot.benchmark).values_list("user_id", "name")
    )
    results = {r["rater"]: r for r in calibration["results"] if r["round"] == round_.name}
    assert set(results) == {names[user.pk] for user in raters}
    first = results[names[raters[0].pk]]
    assert first["complete"] and first["agreement"] == 1.0 and first["passed"]
    assert results[names[raters[1].pk]]["agreement"] == 0.0
    reference = ReviewItem.objects.get(round=round_, is_reference=True)
    assert {(a["question_id"], a["system"]) for a in first["answers"]} == {
        (reference.response.case.external_id, reference.response.system.name)
    }
    text = files[layout.CALIBRATION].decode()
    assert not any(user.username in text for user in raters)  # pseudonyms only
    assert "calibration" in _checks(data, "pass") and verify_bundle(io.BytesIO(data)).ok

    # A failed rater shown as passed, the file list rewritten: its own check fails.
    calibration["results"][[r["rater"] for r in calibration["results"]].index(names[raters[1].pk])][
        "passed"
    ] = True
    store(files, layout.CALIBRATION, calibration)
    assert _checks(write_files(files), "fail") == {"calibration"}
