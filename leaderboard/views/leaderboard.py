from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.access import permission_needed
from annotation.selectors.benchmarks import benchmark_get
from judging.models import JudgeRun
from judging.scoring import Profile
from judging.selectors.scores import latest_finished_run
from judging.selectors.stored_scores import stored_leaderboard_rows
from leaderboard.board import board
from leaderboard.models import LeaderboardSnapshot
from leaderboard.services.gate import PublishRefused, leaderboard_publish

PUBLISH = "leaderboard.publish_leaderboard"


@permission_needed("annotation.view_benchmark")
def leaderboard_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    profile = request.GET.get("profile", Profile.HEARTBENCH)
    if profile not in {p.value for p in Profile}:
        profile = Profile.HEARTBENCH
    run_id = request.GET.get("run", "")
    run = (
        get_object_or_404(
            JudgeRun.objects.select_related("config"), pk=int(run_id), benchmark=benchmark
        )
        if run_id.isdigit()
        else latest_finished_run(benchmark=benchmark)
    )
    rows = stored_leaderboard_rows(run=run, profile=profile) if run else []
    snapshots = LeaderboardSnapshot.objects.filter(benchmark=benchmark).select_related(
        "gate", "run", "published_by"
    )[:10]
    return render(
        request,
        "leaderboard/leaderboard.html",
        {
            "benchmark": benchmark,
            "run": run,
            "board": board(rows),
            "profile": str(profile),
            "profiles": [p.value for p in Profile],
            "snapshots": snapshots,
        },
    )


@permission_needed(PUBLISH)
@require_POST
def leaderboard_publish_view(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    run = get_object_or_404(JudgeRun, pk=request.POST.get("run"), benchmark=benchmark)
    try:
        snapshot = leaderboard_publish(
            run=run, profile=request.POST.get("profile", Profile.HEARTBENCH), user=request.user
        )
    except PublishRefused as exc:
        messages.error(request, str(exc))
        return redirect("leaderboard", slug=slug)
    return redirect("leaderboard-snapshot", slug=slug, snapshot_id=snapshot.pk)


@permission_needed("annotation.view_benchmark")
def snapshot_page(request: HttpRequest, slug: str, snapshot_id: int) -> HttpResponse:
    snapshot = get_object_or_404(
        LeaderboardSnapshot.objects.select_related("gate", "run", "benchmark", "published_by"),
        pk=snapshot_id,
        benchmark__slug=slug,
    )
    return render(
        request, "leaderboard/snapshot.html", {"snapshot": snapshot, "board": board(snapshot.rows)}
    )
