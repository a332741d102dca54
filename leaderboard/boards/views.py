from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.access import permission_needed
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from judging.scoring import Profile
from leaderboard.boards.board import board
from leaderboard.boards.selectors.runs import BoardNotFound, board_runs
from leaderboard.boards.services import stored_leaderboard_rows
from leaderboard.drift.selectors import drifted_versions, version_drift
from leaderboard.evidence.selectors.pick import benchmark_judges
from leaderboard.exports.bundles.download import bundle_response
from leaderboard.gate.selectors.publishing import (
    board_published_as,
    publish_state,
    superseded_boards,
)
from leaderboard.gate.services.evaluation import PublishRefused, leaderboard_publish
from leaderboard.models import LeaderboardSnapshot
from leaderboard.report.wording import refusal_text, validation_text


def _profile(value: str) -> str:
    return value if value in {p.value for p in Profile} else Profile.HEARTBENCH.value


def _run_ids(values: list[str]) -> list[int]:
    return [int(value) for value in values if value.isdigit()]


@permission_needed(Perm.VIEW_BENCHMARK)
def leaderboard_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    profile = _profile(request.GET.get("profile", ""))
    judge, runs = request.GET.get("judge", ""), _run_ids(request.GET.getlist("run"))
    chosen, problem, rows, state, drift = None, "", [], None, None
    try:
        chosen = board_runs(benchmark=benchmark, judge=judge, runs=runs)
    except BoardNotFound as exc:
        if judge or runs:
            raise Http404(str(exc)) from exc
        problem = str(exc)
    if chosen is not None:
        rows = stored_leaderboard_rows(board=chosen, profile=profile)
        decision, evaluation = publish_state(board=chosen, user=request.user, profile=profile)
        version = chosen.judge_version
        drift = version_drift(benchmark=benchmark, version=version) if version else None
        state = {
            "allowed": decision.allowed,
            "text": validation_text(evaluation, decision.rubric_changes)
            if decision.allowed
            else refusal_text(decision, evaluation, version.label if version else ""),
        }
    snapshots = (
        LeaderboardSnapshot.objects.filter(benchmark=benchmark)
        .select_related("judge_version__config", "published_by")
        .prefetch_related("runs")[:10]
    )
    drifted = drifted_versions(
        benchmark=benchmark, version_ids={s.judge_version_id for s in snapshots}
    )
    return render(
        request,
        "leaderboard/leaderboard.html",
        {
            "benchmark": benchmark,
            "chosen": chosen,
            "problem": problem,
            "state": state,
            "board": board(rows),
            "profile": profile,
            "profiles": [p.value for p in Profile],
            "judges": benchmark_judges(benchmark=benchmark),
            "snapshots": snapshots,
            "drift": drift,
            "drifted_versions": drifted,
            "superseded": superseded_boards(snapshots=snapshots),
            "published": board_published_as(board=chosen, profile=profile) if chosen else None,
        },
    )


@permission_needed(Perm.PUBLISH_LEADERBOARD)
@require_POST
def leaderboard_publish_view(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    judge, runs = request.POST.get("judge", ""), _run_ids(request.POST.getlist("run"))
    back = reverse("leaderboard", args=[slug])
    if request.POST.get("confirm") != "yes":
        messages.error(
            request,
            _("Nothing was published: tick the box to confirm that this board becomes public."),
        )
        return redirect(back)
    try:
        chosen = board_runs(benchmark=benchmark, judge=judge, runs=runs)
        snapshot = leaderboard_publish(
            board=chosen, profile=_profile(request.POST.get("profile", "")), user=request.user
        )
    except (BoardNotFound, PublishRefused) as exc:
        messages.error(request, str(exc))
        return redirect(back)
    return redirect("leaderboard-snapshot", slug=slug, snapshot_id=snapshot.pk)


@permission_needed(Perm.VIEW_BENCHMARK)
def snapshot_page(request: HttpRequest, slug: str, snapshot_id: int) -> HttpResponse:
    snapshot = get_object_or_404(
        LeaderboardSnapshot.objects.select_related(
            "gate__round", "gate__judge_version__config", "benchmark", "published_by"
        ).prefetch_related("runs"),
        pk=snapshot_id,
        benchmark__slug=slug,
    )
    return render(
        request,
        "leaderboard/snapshot.html",
        {
            "snapshot": snapshot,
            "board": board(snapshot.rows),
            "validation": validation_text(snapshot.gate, snapshot.rubric_changes),
            "superseded": superseded_boards(snapshots=[snapshot]).get(snapshot.pk),
            "drift": drifted_versions(
                benchmark=snapshot.benchmark, version_ids=[snapshot.judge_version_id]
            ).get(snapshot.judge_version_id),
        },
    )


@permission_needed(Perm.EXPORT_DATA)
def snapshot_bundle(request: HttpRequest, slug: str, snapshot_id: int) -> FileResponse:
    """The published board's evidence bundle (zip): everything it rests on, checkable with
    `manage.py verify_bundle`."""
    snapshot = get_object_or_404(LeaderboardSnapshot, pk=snapshot_id, benchmark__slug=slug)
    return bundle_response(snapshot)
