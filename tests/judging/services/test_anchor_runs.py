"""Every judge run of a benchmark with drift anchors judges them too: a round's run as well
as a run of some systems, each anchor on the rubric version its round froze; the run
records the set and the seed that placed them, and its audit entry counts them apart."""

import pytest

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import ReviewRound
from annotation.services.review_rounds import round_open
from core.models import AuditEvent
from judging.models import JudgeRun
from judging.selectors.runs import rounds_judged
from judging.services.lanes import run_here
from judging.services.runs import judge_run_start
from tests.judging.anchors import anchors_on

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_run_without_anchors_is_as_it_was(judged_benchmark, sim_config, simulator):
    benchmark, systems = judged_benchmark
    run = judge_run_start(benchmark=benchmark, systems=systems[:1], config=sim_config())
    assert run.anchor_set is None and run.anchor_seed is None
    assert run.tasks.count() == run.tasks.requested().count() == 4
    assert not run.tasks.filter(anchor=True).exists()


def test_a_round_run_of_one_system_judges_the_other_systems_anchors(
    judged_benchmark, sim_config, simulator
):
    benchmark, (alpha, beta) = judged_benchmark
    anchor_set = anchors_on(benchmark, [beta])
    expert = user_create_with_role(username="alpha-expert", password="x-pass-123", role=EXPERT)
    alpha_round = round_open(
        benchmark=benchmark,
        name="alpha",
        systems=[alpha],
        experts=[expert],
        fraction=1.0,
        raters_per_item=1,
    )
    run = judge_run_start(
        benchmark=benchmark, systems=[], round_=alpha_round, config=sim_config(), anchor_seed=5
    )
    assert (run.anchor_set, run.anchor_seed) == (anchor_set, 5)
    own = run.tasks.requested()
    added = run.tasks.filter(requested=False)
    assert set(own.values_list("system__name", flat=True)) == {"Alpha"} and own.count() == 4
    assert set(added.values_list("system__name", flat=True)) == {"Beta"} and added.count() == 4
    frozen = dict(anchor_set.units.values_list("response_id", "rubric_version_id").distinct())
    assert dict(added.values_list("response_id", "rubric_version_id")) == frozen
    assert list(run.systems.all()) == [alpha]
    details = AuditEvent.objects.get(action="judging.run_started").details
    assert (details["tasks"], details["anchor_tasks"], details["anchor_set"]) == (
        4,
        4,
        anchor_set.pk,
    )
    run_here(run_id=run.pk, lanes=4)
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.FINISHED
    # The anchors' round is not one this run judged: it was asked for Alpha's round only.
    assert [r.pk for r in rounds_judged(run=run)] == [alpha_round.pk]
    assert ReviewRound.objects.count() == 2
