"""The agreement and leaderboard pages run a bounded number of queries whatever the size."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.roles import EXPERT
from accounts.services import user_create_with_role
from annotation.models import Benchmark, System
from annotation.selectors.review import item_criteria
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import responses_import
from annotation.services.review_assignment import assignment_next
from annotation.services.review_rounds import round_open
from annotation.services.review_votes import VoteInput, assignment_submit
from judging.models import JudgeRun, JudgeTask
from judging.services.judgments_import import judgments_import
from leaderboard.boards.selectors.scores import leaderboard_rows
from leaderboard.boards.services import stored_leaderboard_rows
from leaderboard.models import StoredBoard
from tests.conftest import board_of, client_for, jsonl_bytes, lines, question

pytestmark = pytest.mark.django_db


def build(slug: str, cases: int) -> tuple:
    ids = [f"{slug}{i}" for i in range(cases)]
    benchmark_import(chunks=lines(jsonl_bytes([question(q) for q in ids])), benchmark_slug=slug)
    responses_import(
        chunks=lines(jsonl_bytes([{"question_id": q, "response": "嗯"} for q in ids])),
        benchmark_slug=slug,
        system_name=f"S-{slug}",
    )
    experts = [
        user_create_with_role(username=f"{slug}-e{i}", password="x-pass-123", role=EXPERT)
        for i in range(3)
    ]
    round_ = round_open(
        benchmark=Benchmark.objects.get(slug=slug),
        name=f"R-{slug}",
        systems=list(System.objects.filter(name=f"S-{slug}")),
        experts=experts,
        fraction=1.0,
    )
    for expert in experts:
        while (a := assignment_next(expert=expert, round_=round_)) is not None:
            votes = [VoteInput(c.pk, c.position % 2 == 1) for c in item_criteria(assignment=a)]
            assignment_submit(
                assignment=a, votes=votes, comment="", active_seconds=9, base_revision=0
            )
    judgments_import(
        chunks=lines(jsonl_bytes([{"question_id": q, "score_detail": [1, 0, 1, 1]} for q in ids])),
        benchmark_slug=slug,
        system_name=f"S-{slug}",
        judge_name=f"J-{slug}",
    )
    return round_, JudgeRun.objects.get(benchmark__slug=slug)


def count(client, url, params) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url, params).status_code == 200
    return len(queries)


def test_agreement_and_leaderboard_queries_do_not_grow_with_the_data(coordinator):
    client = client_for(coordinator)
    counts = []
    for slug, cases in (("small", 2), ("large", 12)):
        round_, run = build(slug, cases)
        counts.append(
            (
                count(
                    client, reverse("agreement", args=[slug]), {"round": round_.pk, "run": run.pk}
                ),
                count(client, reverse("leaderboard", args=[slug]), {"run": run.pk}),
                count(
                    client,
                    reverse("disagreements", args=[slug]),
                    {"round": round_.pk, "run": run.pk},
                ),
                count(
                    client,
                    reverse("disagreement-case", args=[slug, round_.items.first().response_id]),
                    {"round": round_.pk, "run": run.pk},
                ),
            )
        )
    assert counts[0] == counts[1], counts


def test_the_leaderboard_page_reads_stored_rows_in_a_fixed_number_of_queries(
    coordinator, django_assert_max_num_queries
):
    """Once a finished run's rows are stored, a view reads them back instead of the
    verdicts: the session, user and permissions (3), the benchmark (1), the run (1), the
    runs' fingerprint and systems (2), the stored rows (1), the systems' kinds (1), the
    gate's evaluations and policy (2), the taxonomy for the heatmap (1), the navigation's
    groups (1), the published snapshots (1) and the benchmark's drift anchors, for the
    publish check and for the page's drift warning (2)."""
    client = client_for(coordinator)
    _, run = build("stored", 6)
    url = reverse("leaderboard", args=["stored"])
    first = client.get(url, {"run": run.pk})
    assert first.status_code == 200
    assert StoredBoard.objects.filter(runs=str(run.pk)).count() == 1
    with django_assert_max_num_queries(16):
        again = client.get(url, {"run": run.pk})
    # The tables (everything from the ranking to the publish form's CSRF token) are the same.
    stored, computed = _board(again.content), _board(first.content)
    assert b"<td" in computed
    at = next((i for i, (a, b) in enumerate(zip(stored, computed, strict=False)) if a != b), None)
    assert stored == computed, (
        f"first difference at byte {at}: stored {stored[(at or 0) - 150 : (at or 0) + 80]!r}"
        f" vs computed {computed[(at or 0) - 150 : (at or 0) + 80]!r}"
    )


def _board(content: bytes) -> bytes:
    return content.split(b'id="ranking"')[1].split(b"csrfmiddlewaretoken")[0]


def test_the_agreement_report_page_runs_a_bounded_number_of_queries(
    coordinator, django_assert_max_num_queries
):
    """The same for 2 cases as for 12 (see the test above); bounded, not growing: the session,
    user and permissions (3), the benchmark and its gate policy (2), the round and its
    items with their frozen rubric versions (2), the run (1), the round's tasks (1), the
    units (items, criteria, experts, votes, verdicts: 5), the items' hand-out order for the
    sequential gate (1), the navigation's groups (1), the choices (rounds, runs with
    coverage, judges: 3), the recorded evaluations (1), and the gate's history: the
    benchmark's earlier rounds and whether any rater could read verdicts (2)."""
    client = client_for(coordinator)
    round_, run = build("bounded", 8)
    with django_assert_max_num_queries(22):
        response = client.get(
            reverse("agreement", args=["bounded"]), {"round": round_.pk, "run": run.pk}
        )
    assert response.status_code == 200


def test_stored_rows_follow_the_run_and_unfinished_runs_are_never_stored(coordinator):
    client = client_for(coordinator)
    _, run = build("moving", 4)
    url = reverse("leaderboard", args=["moving"])
    assert client.get(url, {"run": run.pk}).status_code == 200
    before = leaderboard_rows(board=board_of(run), profile="heartbench")
    assert stored_leaderboard_rows(board=board_of(run), profile="heartbench") == before

    # A task failing after the fact (a data repair) changes the fingerprint: recomputed.
    task = run.tasks.order_by("pk").first()
    JudgeTask.objects.filter(pk=task.pk).update(status=JudgeTask.Status.FAILED)
    after = stored_leaderboard_rows(board=board_of(run), profile="heartbench")
    assert after == leaderboard_rows(board=board_of(run), profile="heartbench") != before
    assert sum(row["cases_failed"] for row in after) == 1

    JudgeRun.objects.filter(pk=run.pk).update(status=JudgeRun.Status.PAUSED)
    StoredBoard.objects.all().delete()
    run.refresh_from_db()
    assert stored_leaderboard_rows(board=board_of(run), profile="heartbench") == after
    assert not StoredBoard.objects.exists()
