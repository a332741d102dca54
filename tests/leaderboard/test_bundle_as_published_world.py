"""A bundle is the evidence as it stood when its board was published, whatever changes
around the rounds afterwards: the judge runs again and is evaluated again, a rubric is
revised, the gate policy changes, the guidance is rewritten. The same board gives the same
bundle, byte for byte, and it verifies."""

import json
from dataclasses import replace

import pytest

from annotation.models import Ability, FaqEntry, Guideline, ReviewRound, RubricVersion
from annotation.selectors.rubric_rows import rows_of_version
from annotation.services.benchmark_import import benchmark_import
from annotation.services.guidance import faq_entry_delete, faq_entry_save, worked_example_save
from annotation.services.review_rounds import guideline_save
from annotation.services.rubrics import rubric_version_create
from judging.models import JudgeConfig, OutputProbe
from judging.services.judgments_import import judgments_import
from leaderboard.evidence.selectors.pick import agreement_evidence
from leaderboard.exports.bundles import layout
from leaderboard.gate.services.evaluation import gate_evaluate
from leaderboard.gate.services.policy_edit import gate_policy_set
from leaderboard.management.commands.load_demo import (
    DEMO_DIR,
    DEMO_JUDGE,
    DEMO_ROUND,
    SYSTEMS,
    VALIDATION_ROUND,
)
from tests.conftest import jsonl_bytes, lines
from tests.leaderboard.as_published_tools import (
    assert_same_evidence,
    bundle,
    coordinator,
    demo,
    publish,
)
from tests.leaderboard.bundle_tools import load, read_files

pytestmark = pytest.mark.django_db


def _evaluate():
    evidence = agreement_evidence(benchmark=demo(), round_ref=VALIDATION_ROUND, judge=DEMO_JUDGE)
    return gate_evaluate(evidence=evidence, user=coordinator())


def test_the_judge_running_and_evaluated_again_after_publication_changes_nothing(demo_loaded):
    snapshot = publish()
    before = bundle(snapshot)
    # The same judge version scores the systems again, is probed, and evaluated again.
    for file_key, system, _kind in SYSTEMS:
        with (DEMO_DIR / f"judgments.{file_key}.zh.jsonl").open("rb") as chunks:
            judgments_import(
                chunks=chunks, benchmark_slug="demo", system_name=system, judge_name=DEMO_JUDGE
            )
    OutputProbe.objects.create(
        judge_version=snapshot.judge_version,
        model="concord-sim",
        finding=OutputProbe.Finding.REFUSED,
        mode=OutputProbe.Mode.PLAIN_JSON,
    )
    _evaluate()
    assert_same_evidence(before, bundle(snapshot))


def test_a_rubric_revised_after_publication_changes_nothing(demo_loaded):
    correcting = ReviewRound.objects.get(name=DEMO_ROUND)
    snapshot = publish(corrected_by=correcting)
    before = bundle(snapshot)
    for item in correcting.items.select_related("rubric_version__case")[:2]:
        version = item.rubric_version
        rows = rows_of_version(version)
        rows[0] = replace(rows[0], text=rows[0].text + "（修订）")
        rubric_version_create(
            case=version.case, rows=rows, parent_number=version.number, author=None, note="修订"
        )
    assert RubricVersion.objects.filter(number=2).count() == 2
    assert_same_evidence(before, bundle(snapshot))


@pytest.mark.parametrize("changed_before", [False, True])
def test_the_gate_policy_changed_after_publication_changes_nothing(demo_loaded, changed_before):
    if changed_before:
        gate_policy_set(
            benchmark=demo(),
            rule="point",
            threshold=0.75,
            allow_rubric_changes=True,
            max_bias_points=40.0,
            user=coordinator(),
        )
    snapshot = publish(corrected_by=ReviewRound.objects.get(name=VALIDATION_ROUND))
    before = bundle(snapshot)
    gate_policy_set(
        benchmark=demo(),
        rule="lower_bound",
        threshold=0.8,
        allow_rubric_changes=False,
        max_bias_points=5.0,
        min_raters=2,
        chance=("cohen_kappa", 0.4),
        user=coordinator(),
    )
    assert_same_evidence(before, bundle(snapshot))


@pytest.mark.parametrize("recorded", [True, False])
def test_guidance_rewritten_after_publication_changes_nothing(demo_loaded, recorded):
    """What the raters read before the evaluation is the record, whether its saves were
    logged or it was written before the log kept guidance (`recorded` off); rewriting or
    deleting it after publication, or adding to it, changes nothing."""
    user = coordinator()
    ability = Ability.objects.order_by("pk").first()
    if recorded:
        guideline_save(benchmark=demo(), text="先读完整段对话。", user=user)
        kept = faq_entry_save(
            benchmark=demo(), entry=None, question="问？", answer="答。", abilities=[ability],
            user=user, criteria=["1"],
        )  # fmt: skip
        dropped = faq_entry_save(
            benchmark=demo(), entry=None, question="另问？", answer="另答。", abilities=[],
            user=user,
        )  # fmt: skip
    else:
        Guideline.objects.create(benchmark=demo(), text="先读完整段对话。")
        kept = FaqEntry.objects.create(benchmark=demo(), question="问？", answer="答。")
        kept.abilities.set([ability])
        dropped = FaqEntry.objects.create(benchmark=demo(), question="另问？", answer="另答。")
    # Evaluated again, so the raters' window covers the guidance.
    _evaluate()
    snapshot = publish()
    before = bundle(snapshot)
    documents = load(read_files(before), layout.GUIDANCE)["documents"]
    assert len(documents) == 3
    guideline_save(benchmark=demo(), text="先读完整段对话，再看回答。", user=user)
    faq_entry_save(
        benchmark=demo(), entry=kept, question="问？", answer="新答。", abilities=[], user=user
    )
    faq_entry_delete(entry=dropped, user=user)
    faq_entry_save(
        benchmark=demo(), entry=None, question="新问？", answer="新答。", abilities=[], user=user
    )
    worked_example_save(
        benchmark=demo(), example=None, ability=ability, title="例", body="例文。", user=user
    )
    assert_same_evidence(before, bundle(snapshot))


def test_the_judge_renamed_after_publication_changes_nothing(demo_loaded):
    """The board and its evaluations keep the judge's name as it was (renaming a judge
    rewrites no evidence), and so does the bundle."""
    snapshot = publish()
    before = bundle(snapshot)
    # As the judge's form renames it: the configuration's name, every version's label.
    JudgeConfig.objects.filter(pk=snapshot.judge_version.config_id).update(name="改名后的评审模型")
    assert_same_evidence(before, bundle(snapshot))


def test_a_case_relabelled_after_publication_changes_nothing(demo_loaded):
    """A case made hard (asked for by name) or moved to another scene after publication:
    the board's normal and hard scores, the rubrics and the frames keep the labels they
    were published with."""
    correcting = ReviewRound.objects.get(name=DEMO_ROUND)
    snapshot = publish(corrected_by=correcting)
    before = bundle(snapshot)
    rows = [
        json.loads(line)
        for line in (DEMO_DIR / "questions.zh.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    rows[0]["difficulty"] = "hard" if rows[0]["difficulty"] == "normal" else "normal"
    rows[1]["primary_scene"], rows[1]["secondary_scene"] = "新场景", "新的子场景"
    benchmark_import(chunks=lines(jsonl_bytes(rows)), benchmark_slug="demo", change_difficulty=True)
    assert_same_evidence(before, bundle(snapshot))
