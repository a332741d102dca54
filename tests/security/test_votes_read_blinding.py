"""Attacker's finding 15: a user who is Expert and Coordinator, or Expert and Researcher,
read an open round's votes through the consensus API or votes.csv (notes included), then
rated: 4 of 6 items handed to it were items whose votes it had read, and nothing recorded
that it had read them. Reading a round's votes, in any role and by any route, is recorded as
adjudicating is, and the round hands that reader nothing more to rate."""

import pytest
from django.urls import reverse

from accounts.roles import COORDINATOR, EXPERT, RESEARCHER
from annotation.models import Assignment, VotesSeen
from annotation.services.review_assignment import AssignmentRefused, assignment_next
from annotation.services.review_rounds import round_open
from leaderboard.exports.services import export_job_run
from leaderboard.models import ExportJob
from tests.annotation.review.conftest import experts, review_data  # noqa: F401
from tests.conftest import client_for
from tests.security.votes_read import person, rate

READERS = {
    "consensus API": lambda r: (reverse("api-review-manage-round-consensus", args=[r.pk]), {}),
    "consensus page": lambda r: (reverse("review-consensus", args=[r.pk]), {}),
    "votes.csv": lambda r: (
        reverse("export-download", args=[r.benchmark.slug, "votes", "csv"]),
        {"round": r.pk},
    ),
    "votes.jsonl": lambda r: (
        reverse("export-download", args=[r.benchmark.slug, "votes", "jsonl"]),
        {"round": r.pk},
    ),
    "export job (page)": lambda r: (
        reverse("export-job-download", args=[r.benchmark.slug, _job(r)]),
        {},
    ),
    "export job (API)": lambda r: (
        reverse("api-export-job-file", args=[r.benchmark.slug, _job(r)]),
        {},
    ),
}


def _job(round_) -> int:
    """A finished export of the round's votes, made by someone else."""
    job = ExportJob.objects.create(
        benchmark=round_.benchmark, kind="votes", format="csv", round=round_
    )
    assert export_job_run(job_id=job.pk) == "done"
    return job.pk


@pytest.mark.parametrize("second_role", [COORDINATOR, RESEARCHER])
@pytest.mark.parametrize("reader", list(READERS))
def test_reading_a_rounds_votes_in_another_role_stops_rating_its_items(
    review_data,  # noqa: F811
    experts,  # noqa: F811
    second_role,
    reader,
    settings,
    tmp_path,
):
    settings.EXPORT_ROOT = tmp_path / "exports"
    benchmark, systems = review_data
    dual = person("dual", EXPERT, second_role)
    round_ = round_open(
        benchmark=benchmark,
        name="dual-roles",
        systems=systems,
        experts=[*experts[:3], dual],
        fraction=0.3,
    )
    for expert in experts[:2]:
        for _ in range(3):
            rate(expert, round_, note="看第一句")
    voted = set(
        Assignment.objects.filter(item__round=round_, revision__gt=0).values_list(
            "item_id", flat=True
        )
    )
    assert len(voted) >= 3
    url, query = READERS[reader](round_)
    page = client_for(dual).get(url, query)
    assert page.status_code == 200
    assert b"".join(page.streaming_content) if page.streaming else page.content

    seen = set(VotesSeen.objects.filter(user=dual).values_list("item_id", flat=True))
    assert voted <= seen
    handed = []
    try:
        while (assignment := assignment_next(expert=dual, round_=round_)) is not None:
            handed.append(assignment.item_id)
            Assignment.objects.filter(pk=assignment.pk).update(status="submitted")
    except AssignmentRefused as refused:
        assert "votes" in str(refused)
    assert not set(handed) & voted
