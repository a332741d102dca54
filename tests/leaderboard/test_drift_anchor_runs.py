"""The anchors are mixed, blind, into every judge run (issue #31, item 5): a run started for
some systems only still judges every anchor, with requests built exactly like its own and
at places drawn from its seed; those added anchors count for the drift test alone, never
on the run's board or in its agreement; and an anchor whose case's rubric changed is set
aside, with the reason, rather than compared across rubric versions. Real judge calls to
the simulator over HTTP."""

from dataclasses import replace

import pytest
from django.urls import reverse

from annotation.models import ReviewRound, RubricVersion, System
from annotation.selectors.rubric_rows import rows_of_version
from annotation.services.review_rounds import round_set_status
from annotation.services.rubrics import rubric_version_create
from judging.anchor_order import anchor_places, interleave
from judging.models import JudgeConfig, JudgeRun, JudgeTask
from judging.selectors.runs import rounds_judged
from judging.services.anchors import anchor_set_create
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start
from leaderboard.boards.selectors.scores import leaderboard_rows
from leaderboard.drift.selectors import version_drift
from leaderboard.evidence.selectors.pick import round_runs
from leaderboard.exports.tables import case_score_rows, verdict_rows
from leaderboard.stats.drift import planned_runs
from tests.conftest import board_of, client_for, evidence_of
from tests.judging.conftest import simulator  # noqa: F401 - the simulator over HTTP
from tests.leaderboard.test_evidence_chain import (  # noqa: F401 - fixtures and helpers
    SYSTEMS,
    config_form,
    open_round,
    start_run,
    vote,
    world,
)

pytestmark = pytest.mark.django_db(transaction=True)


def anchored(client, benchmark, experts, simulator, **anchors):  # noqa: F811
    """A judge, its first run over every system, a closed round voted as that run judged,
    and anchors made from the round (by default all twelve responses)."""
    assert client.post(reverse("judge-config-new"), config_form(simulator)).status_code == 302
    first = start_run(client, benchmark)
    round_ = open_round(benchmark, experts, "R1")
    vote(round_, experts, like=first, agree=True)
    round_set_status(round_=round_, status=ReviewRound.Status.CLOSED)
    anchor_set = anchor_set_create(round_=round_, **{"responses": 30, "seed": 3, **anchors})
    return first, round_, anchor_set


def alpha_run(client, benchmark, **extra) -> JudgeRun:
    """A run of the judge on Alpha's responses only, through the run form."""
    config = JudgeConfig.objects.get(name="sim judge")
    alpha = System.objects.get(name="Alpha")
    response = client.post(
        reverse("judge-run-new"),
        {"benchmark": benchmark.pk, "systems": [alpha.pk], "config": config.pk, **extra},
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    run = JudgeRun.objects.order_by("-pk").first()
    assert run.status == JudgeRun.Status.FINISHED
    return run


def test_a_run_of_some_systems_judges_every_anchor_blind_and_interleaved(
    world,  # noqa: F811
    coordinator,
    simulator,  # noqa: F811
):
    benchmark, experts = world
    client = client_for(coordinator)
    first, _round, anchor_set = anchored(client, benchmark, experts, simulator)
    alpha = System.objects.get(name="Alpha")
    run = judge_run_start(
        benchmark=benchmark,
        systems=[alpha],
        config=JudgeConfig.objects.get(name="sim judge"),
        anchor_seed=11,
    )
    run_here(run_id=run.pk, lanes=4)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED
    assert list(run.systems.all()) == [alpha] and run.anchor_set == anchor_set
    assert run.anchor_seed == 11

    tasks = list(run.tasks.order_by("pk").select_related("system", "case"))
    own = [t for t in tasks if t.requested]
    added = [t for t in tasks if not t.requested]
    # Every anchor is judged: Alpha's as the run's own, the others added.
    anchors = set(anchor_set.units.values_list("response_id", flat=True))
    assert {t.response_id for t in tasks} == anchors and len(anchors) == 12
    assert {t.system.name for t in own} == {"Alpha"} and len(own) == 4
    assert {t.system.name for t in added} == {"Beta", "Gamma"} and len(added) == 8
    assert all(t.anchor for t in tasks)  # every one is called anew
    # Interleaved at the places the run's seed draws, not appended as a block.
    flags = [t.requested for t in tasks]
    assert [i for i, mine in enumerate(flags) if not mine] == anchor_places(own=4, added=8, seed=11)
    assert [mine for _row, mine in interleave(range(4), range(8), seed=11)] == flags
    assert flags not in (sorted(flags), sorted(flags, reverse=True))
    # The run's own tasks keep their order (case by case).
    assert [t.case.position for t in own] == sorted(t.case.position for t in own)

    # Blind: each request, prompt and settings, is exactly the one an ordinary task of the
    # same response sends (the first run judged every response as its own).
    ordinary = dict(first.tasks.values_list("response_id", "request_hash"))
    assert all(t.status == JudgeTask.Status.DONE and t.request_hash for t in tasks)
    assert {t.response_id: t.request_hash for t in tasks} == {
        t.response_id: ordinary[t.response_id] for t in tasks
    }
    # Nothing was reused from the first run's answers: the anchors were asked again.
    assert not any(t.cached_from_id for t in tasks)
    drift = version_drift(benchmark=benchmark, version=run.judge_version)
    assert [row.run for row in drift.runs] == [first, run]
    assert drift.runs[1].agreement == 1.0 and drift.runs[1].missing == 0
    # The run page says how many of its tasks are anchors it was not asked for.
    page = client.get(reverse("judge-run", args=[run.pk])).content.decode()
    assert 'id="anchors-added"' in page and "8 are drift anchors" in page


def test_anchors_added_to_a_run_change_none_of_its_numbers(
    world,  # noqa: F811
    coordinator,
    simulator,  # noqa: F811
):
    """The same run of Alpha, before the anchors existed and after: its board, its
    agreement on the round, its coverage and its exports are the same."""
    benchmark, experts = world
    client = client_for(coordinator)
    assert client.post(reverse("judge-config-new"), config_form(simulator)).status_code == 302
    first = start_run(client, benchmark)
    round_ = open_round(benchmark, experts, "R1")
    vote(round_, experts, like=first, agree=False)
    round_set_status(round_=round_, status=ReviewRound.Status.CLOSED)
    before = alpha_run(client, benchmark)
    anchor_set_create(round_=round_, responses=30, seed=3)
    after = alpha_run(client, benchmark)
    assert after.tasks.count() == 12 and after.tasks.requested().count() == 4
    assert before.tasks.count() == 4

    board_before, board_after = board_of(before), board_of(after)
    assert list(board_after.tasks()) and board_after.tasks().count() == 4
    for profile in ("heartbench", "heartbench-code"):
        assert leaderboard_rows(board=board_after, profile=profile) == leaderboard_rows(
            board=board_before, profile=profile
        )
    old, new = evidence_of(round_, before), evidence_of(round_, after)
    assert (
        (new.items, new.covered, new.frozen)
        == (old.items, old.covered, old.frozen)
        == (
            12,
            4,
            4,
        )
    )
    assert new.report.as_json() == old.report.as_json()
    covered = {run.pk: run.covered for run in round_runs(benchmark=benchmark, round_=round_)}
    assert covered[after.pk] == covered[before.pk] == 4
    assert rounds_judged(run=after) == rounds_judged(run=before) == []
    # With no run given, the agreement is still the full run's (Alpha's runs cover 4 of 12).
    assert evidence_of(round_).run == first

    assert len(list(verdict_rows(run=after))) == len(list(verdict_rows(run=before)))
    # The research files: the same rows, the run's id aside.
    assert [r[2:] for r in case_score_rows(run=after, profile="heartbench")] == [
        r[2:] for r in case_score_rows(run=before, profile="heartbench")
    ]


def test_drift_is_detected_on_runs_that_never_asked_for_the_anchor_systems(
    world,  # noqa: F811
    coordinator,
    simulator,  # noqa: F811
):
    benchmark, experts = world
    client = client_for(coordinator)
    first, _round, anchor_set = anchored(client, benchmark, experts, simulator)
    gold = list(anchor_set.units.values_list("gold", flat=True))
    # Without "ignore cached answers": the anchors are asked anew all the same.
    steady = alpha_run(client, benchmark)
    state = version_drift(benchmark=benchmark, version=first.judge_version)
    assert [row.agreement for row in state.runs] == [1.0, 1.0]
    assert not state.drifted and state.runs[1].reused == 0

    simulator.configure(drift_after=0, drift_hit_rate=1.0)
    drifted_agreement = sum(gold) / len(gold)
    planned = planned_runs(
        sizes=[4] * 12, agreement=1.0, drift=drifted_agreement - 1.0, power=0.9, seed=5
    )
    assert planned is not None and planned <= 5
    later = [alpha_run(client, benchmark) for _ in range(planned)]
    assert all(list(run.systems.values_list("name", flat=True)) == ["Alpha"] for run in later)
    state = version_drift(benchmark=benchmark, version=first.judge_version)
    assert state.drifted, state.test
    assert state.flagged_run in later and state.test.direction == "lower"
    assert state.runs[-1].agreement == pytest.approx(drifted_agreement)
    assert state.runs[1].run == steady
    assert state.runs[2].fingerprints == ("concord-simulator-drifted",)


def _edit_rubric(case_external_id: str) -> RubricVersion:
    old = RubricVersion.objects.get(case__external_id=case_external_id, number=1)
    rows = rows_of_version(old)
    rows[0] = replace(rows[0], text=rows[0].text + "（更清楚）")
    return rubric_version_create(
        case=old.case, rows=rows, parent_number=1, author=None, note="clearer"
    )


def test_a_rubric_change_sets_its_anchors_aside_and_says_so_in_both_languages(
    world,  # noqa: F811
    coordinator,
    simulator,  # noqa: F811
):
    benchmark, experts = world
    client = client_for(coordinator)
    first, round_, anchor_set = anchored(client, benchmark, experts, simulator)
    version = first.judge_version
    recorded = set(
        anchor_set.units.values_list("rubric_version__case__external_id", "rubric_version__number")
    )
    assert recorded == {(case, 1) for case in ("c1", "c2", "c3", "c4")}
    _edit_rubric("c1")

    state = version_drift(benchmark=benchmark, version=version)
    assert len(state.set_aside) == 3 and len(state.anchors) == 9  # c1 of every system
    assert state.runs[0].agreement == 1.0 and state.runs[0].units == 9 * 4
    data = state.as_dict()["anchors"]
    assert (data["tested"], data["criteria"], data["set_aside"]) == (9, 36, 3)
    assert data["reason"] == "anchors_rubric_changed:anchors=3"

    # A later run judges Alpha's c1 on its new rubric as its own, and adds no anchor of c1.
    run = alpha_run(client, benchmark)
    added = run.tasks.filter(requested=False)
    assert added.count() == 6 and not added.filter(case__external_id="c1").exists()
    own_c1 = run.tasks.get(case__external_id="c1")
    assert own_c1.requested and not own_c1.anchor and own_c1.rubric_version.number == 2
    state = version_drift(benchmark=benchmark, version=version)
    assert [row.agreement for row in state.runs] == [1.0, 1.0]

    page = reverse("judge-drift", args=["ev", version.pk])
    html = client.get(page).content.decode()
    assert 'id="anchors-set-aside"' in html
    assert "anchor responses set aside: 3" in html and "Make a new anchor set" in html
    api = client.get(reverse("api-judge-drift", args=["ev", version.pk])).json()
    assert api["anchors"]["set_aside"] == 3
    assert api["anchors"]["reason_text"].startswith("anchor responses set aside: 3.")
    board = client.get(reverse("api-leaderboard", args=["ev"]), {"run": first.pk}).json()
    assert board["drift"]["anchors"]["set_aside"] == 3
    zh = client_for(coordinator)
    zh.cookies["django_language"] = "zh-hans"
    shown = zh.get(page).content.decode()
    assert "搁置的锚点回复：3" in shown and "新的锚点集" in shown
    zh_api = zh.get(reverse("api-judge-drift", args=["ev", version.pk])).json()
    assert zh_api["anchors"]["reason_text"].startswith("搁置的锚点回复：3")

    # A new set, made for the current rubric versions, replaces the old one for later runs;
    # the old one is kept with the runs it was given to.
    renewed = anchor_set_create(round_=round_, responses=30, seed=3)
    assert set(renewed.units.values_list("response__case__external_id", flat=True)) == {
        "c2",
        "c3",
        "c4",
    }  # the round froze c1's first version: it no longer anchors
    later = alpha_run(client, benchmark)
    assert later.anchor_set == renewed and run.anchor_set == anchor_set
    assert not version_drift(benchmark=benchmark, version=version).set_aside
    assert anchor_set.units.exists()
