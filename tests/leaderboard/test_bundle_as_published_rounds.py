"""A bundle is the evidence as it stood when its board was published: whatever happens to
the rounds afterwards (an extension that adds items and raises the others' chances, an item
made a reference item or its answers changed, votes submitted or revised, an adjudication,
raters calibrated) the same board gives the same bundle, byte for byte, and it verifies."""

import io
import json

import pytest

from annotation import audit_actions
from annotation.models import Criterion, ReviewItem, ReviewRound, System
from annotation.services.review_adjudication import Decision, item_adjudicate
from annotation.services.review_rounds import round_extend, round_open, round_set_status
from annotation.services.review_votes import reference_answers_set
from annotation.services.round_pool import pool_add, pool_remove
from core.models import AuditEvent
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.verify import verify_bundle
from leaderboard.management.commands.load_demo import DEMO_ROUND, VALIDATION_ROUND
from tests.leaderboard.as_published_tools import (
    assert_same_evidence,
    bundle,
    demo,
    experts,
    publish,
    rate,
    submit,
)
from tests.leaderboard.bundle_tools import read_files

pytestmark = pytest.mark.django_db

EXPERTS = ("expert1", "expert2", "expert3")
PANEL = ("panel-1", "panel-2", "panel-3")


def _rated(round_: ReviewRound, items: int = 4) -> None:
    """The three demo experts each rate `items` items of the round (the same ones: each item
    wants three raters), one of them reading the first criterion otherwise."""
    for n, expert in enumerate(experts(*EXPERTS)):
        rate(round_, expert, items, flip=1 if n == 2 else 0)


def _reopened(name: str) -> ReviewRound:
    round_ = ReviewRound.objects.get(name=name)
    round_set_status(round_=round_, status=ReviewRound.Status.OPEN)
    round_.refresh_from_db()
    return round_


def _answers(item: ReviewItem, hit: bool) -> dict[int, tuple[bool, str]]:
    return {
        c.pk: (hit if c.position == 1 else True, "known")
        for c in Criterion.objects.filter(rubric_version_id=item.rubric_version_id)
    }


@pytest.mark.parametrize("sampling", ["proportional", "by_system"])
def test_extending_the_rounds_after_publication_changes_nothing(demo_loaded, sampling):
    if sampling == "proportional":
        correcting = ReviewRound.objects.get(name=DEMO_ROUND)
    else:
        correcting = round_open(
            benchmark=demo(),
            name="按系统抽样",
            systems=list(System.objects.filter(responses__case__benchmark=demo()).distinct()),
            experts=experts(*EXPERTS),
            fraction=0.3,
            sampling="by_system",
        )
    _rated(correcting)
    snapshot = publish(corrected_by=correcting)
    before = bundle(snapshot)
    items = correcting.items.count()
    chances = set(correcting.items.values_list("inclusion_probability", flat=True))
    # The correcting round grows; so does the gate evaluation's round (reopened for it).
    round_extend(round_=correcting, fraction=0.6)
    round_extend(round_=_reopened(VALIDATION_ROUND), fraction=0.9)
    assert correcting.items.count() > items
    assert set(correcting.items.values_list("inclusion_probability", flat=True)) != chances
    _rated(correcting, items=2)
    assert_same_evidence(before, bundle(snapshot))


def test_a_board_published_after_an_extension_carries_it(demo_loaded):
    """An extension before publication is part of the evidence (its items and its batch),
    a later one is not."""
    correcting = ReviewRound.objects.get(name=DEMO_ROUND)
    items = correcting.items.count()
    round_extend(round_=correcting, fraction=0.6)
    snapshot = publish(corrected_by=correcting)
    before = bundle(snapshot)
    files = read_files(before)
    assert len(layout.read_csv(files[layout.CORRECTED_ITEMS])) == correcting.items.count() > items
    assert (
        len(json.loads(files[layout.CORRECTED])["corrected_by"]["sampling_frame"]["batches"]) == 2
    )
    round_extend(round_=correcting, fraction=0.8)
    assert_same_evidence(before, bundle(snapshot))


def test_reference_items_marked_or_changed_after_publication_change_nothing(demo_loaded):
    validation = ReviewRound.objects.get(name=VALIDATION_ROUND)
    first, second = validation.items.order_by("hand_out_rank")[:2]
    # A hidden check known before publication: the panel's answers on it are calibration.
    reference_answers_set(item=first, answers=_answers(first, True))
    snapshot = publish(corrected_by=validation)
    before = bundle(snapshot)
    assert {
        row["reference"] for row in layout.read_csv(read_files(before)[layout.CORRECTED_ITEMS])
    } == {"0", "1"}
    reference_answers_set(item=first, answers=_answers(first, False))
    reference_answers_set(item=second, answers=_answers(second, True))
    assert ReviewItem.objects.filter(round=validation, is_reference=True).count() == 2
    assert_same_evidence(before, bundle(snapshot))


def test_votes_submitted_or_revised_after_publication_change_nothing(demo_loaded):
    correcting = ReviewRound.objects.get(name=DEMO_ROUND)
    _rated(correcting)
    snapshot = publish(corrected_by=correcting)
    before = bundle(snapshot)
    # A rater changes their mind on an item the board counted; others rate new items.
    revised = correcting.items.filter(assignments__isnull=False).first().assignments.first()
    revision = revised.revision
    assert submit(revised, flip=3).revision == revision + 1
    _rated(correcting, items=3)
    assert_same_evidence(before, bundle(snapshot))


def test_an_adjudication_after_publication_changes_nothing(demo_loaded):
    correcting = ReviewRound.objects.get(name=DEMO_ROUND)
    _rated(correcting)
    snapshot = publish(corrected_by=correcting)
    before = bundle(snapshot)
    item = correcting.items.filter(assignments__isnull=False).first()
    criterion = Criterion.objects.get(rubric_version_id=item.rubric_version_id, position=1)
    item_adjudicate(
        item=item,
        by=experts("coordinator")[0],
        decisions=[Decision(criterion=criterion, decision=False, note="分歧已裁定")],
    )
    assert_same_evidence(before, bundle(snapshot))


def test_calibration_after_publication_changes_nothing(demo_loaded):
    """The panel that rated the gate's round calibrates on a round of reference items: what
    they answered by publication is the record; answers after it, new reference answers
    and a new calibration round are not."""
    panel = experts(*PANEL)
    calibration = round_open(
        benchmark=demo(),
        name="校准轮",
        systems=list(System.objects.filter(responses__case__benchmark=demo()).distinct()),
        experts=panel,
        fraction=0.1,
        raters_per_item=1,
        is_calibration=True,
    )
    references = list(calibration.items.order_by("hand_out_rank")[:3])
    for item in references[:2]:
        reference_answers_set(item=item, answers=_answers(item, True))
    rate(calibration, panel[0], 1)
    snapshot = publish()
    before = bundle(snapshot)
    assert load_results(before)
    rate(calibration, panel[0], 2)
    rate(calibration, panel[1], 2)
    reference_answers_set(item=references[0], answers=_answers(references[0], False))
    reference_answers_set(item=references[2], answers=_answers(references[2], True))
    later = round_open(
        benchmark=demo(),
        name="校准轮二",
        systems=list(System.objects.filter(responses__case__benchmark=demo()).distinct()),
        experts=panel,
        fraction=0.1,
        raters_per_item=1,
        is_calibration=True,
    )
    item = later.items.first()
    reference_answers_set(item=item, answers=_answers(item, True))
    rate(later, panel[2], 1)
    assert_same_evidence(before, bundle(snapshot))


def load_results(blob: bytes) -> list:
    return json.loads(read_files(blob)[layout.CALIBRATION])["results"]


def test_an_evaluation_reads_its_round_as_it_stood_when_recorded(demo_loaded):
    """Extended after the gate evaluation and before publication, the round's new items
    are the correcting round's evidence, not the evaluation's: it never read them."""
    validation = ReviewRound.objects.get(name=VALIDATION_ROUND)
    evaluated = validation.items.count()
    round_extend(round_=_reopened(VALIDATION_ROUND), fraction=0.9)
    snapshot = publish(corrected_by=validation)
    blob = bundle(snapshot)
    files = read_files(blob)
    prefix = f"evaluations/{snapshot.gate_id}/"
    assert len(layout.read_csv(files[prefix + layout.ITEMS])) == evaluated
    assert len(layout.read_csv(files[layout.CORRECTED_ITEMS])) == validation.items.count()
    assert validation.items.count() > evaluated
    assert verify_bundle(io.BytesIO(blob)).as_dict()["problems"] == []


def test_a_round_extended_before_the_log_kept_chances_is_read_as_it_stands(demo_loaded):
    """A board whose round was extended after publication by a version that kept no
    chances: its bundle is built from the round as it stands, as it always was."""
    correcting = ReviewRound.objects.get(name=DEMO_ROUND)
    snapshot = publish(corrected_by=correcting)
    round_extend(round_=correcting, fraction=0.6)
    event = AuditEvent.objects.get(action=audit_actions.ROUND_EXTENDED)
    event.details.pop("chances_before")
    AuditEvent.objects.filter(pk=event.pk).update(details=event.details)
    blob = bundle(snapshot)
    files = read_files(blob)
    assert len(layout.read_csv(files[layout.CORRECTED_ITEMS])) == correcting.items.count()
    assert verify_bundle(io.BytesIO(blob)).as_dict()["problems"] == []


def test_a_pool_changed_after_publication_changes_nothing(demo_loaded):
    """The bundled raters are the evaluated round's pool and workers at publication: an
    expert calibrated before it and added to the pool after it is not one of them, one
    taken out of the pool after it still is."""
    demo_experts = experts(*EXPERTS)
    calibration = round_open(
        benchmark=demo(),
        name="校准轮",
        systems=list(System.objects.filter(responses__case__benchmark=demo()).distinct()),
        experts=demo_experts,
        fraction=0.1,
        raters_per_item=1,
        is_calibration=True,
    )
    item = calibration.items.order_by("hand_out_rank").first()
    reference_answers_set(item=item, answers=_answers(item, True))
    for expert in demo_experts[:2]:
        rate(calibration, expert, 2)
    validation = _reopened(VALIDATION_ROUND)
    pool_add(round_=validation, expert=demo_experts[1], actor=None)
    snapshot = publish()
    before = bundle(snapshot)
    assert {row["round"] for row in load_results(before)} == {"校准轮"}
    pool_add(round_=validation, expert=demo_experts[0], actor=None)
    pool_remove(round_=validation, expert=demo_experts[1], actor=None)
    assert_same_evidence(before, bundle(snapshot))
