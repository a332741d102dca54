"""An ensemble run's uncertainty per response, against the simulator over real HTTP: the
mean over the response's criteria of the members' minority share, and a round drawn from it."""

from collections import defaultdict

import pytest

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import ReviewItem
from judging.models import MemberVerdict
from judging.selectors.uncertainty import response_uncertainty
from judging.services.uncertain_rounds import uncertain_round_open, uncertainty_probabilities
from tests.judging.services.test_ensemble import _five_samples, _run

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_ensemble_gives_each_response_its_mean_minority_share(judged_benchmark, sim_config):
    benchmark, systems = judged_benchmark
    run = _run(judged_benchmark, _five_samples(sim_config))
    votes = defaultdict(list)
    for response, criterion, hit in MemberVerdict.objects.filter(task__run=run).values_list(
        "task__response_id", "criterion_id", "hit"
    ):
        votes[(response, criterion)].append(hit)
    by_response = defaultdict(list)
    for (response, _criterion), hits in votes.items():
        by_response[response].append(min(sum(hits), len(hits) - sum(hits)) / len(hits))
    expected = {pk: sum(s) / len(s) for pk, s in by_response.items()}
    scores = response_uncertainty(run=run)
    assert scores == pytest.approx(expected)
    assert len(scores) == 8 and any(u > 0 for u in scores.values())

    expert = user_create_with_role(username="u-expert", password="x-pass-123", role=EXPERT)
    chances = uncertainty_probabilities(
        benchmark=benchmark, systems=systems, run=run, second=None, fraction=0.5
    )
    round_ = uncertain_round_open(
        benchmark=benchmark,
        systems=systems,
        run=run,
        fraction=0.5,
        name="from the ensemble",
        experts=[expert],
        raters_per_item=1,
        seed=3,
    )
    for item in ReviewItem.objects.filter(round=round_):
        assert item.inclusion_probability == chances[item.response_id] > 0
    surest = min(scores, key=scores.get)
    most_unsure = max(scores, key=scores.get)
    assert chances[most_unsure] > chances[surest]
