from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.access import permission_needed
from annotation.models import ReviewRound
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from judging.models import JudgeVersion
from judging.services.anchors import DEFAULT_ANCHORS, AnchorsRefused, anchor_set_create
from leaderboard.drift.selectors import version_drift
from leaderboard.report.wording_reasons import reason_text


@permission_needed(Perm.VIEW_BENCHMARK)
def drift_page(request: HttpRequest, slug: str, version_id: int) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    version = get_object_or_404(JudgeVersion.objects.select_related("config"), pk=version_id)
    drift = version_drift(benchmark=benchmark, version=version)
    return render(
        request,
        "leaderboard/drift.html",
        {
            "benchmark": benchmark,
            "version": version,
            "drift": drift,
            "anchor_count": len(drift.anchors) + len(drift.set_aside),
            "anchor_units": sum(len(a.gold) for a in (*drift.anchors, *drift.set_aside)),
            "set_aside_text": reason_text(drift.set_aside_reason),
            "path": list(zip(drift.runs, drift.run_evalues(), strict=True)),
            "closed_rounds": ReviewRound.objects.filter(
                benchmark=benchmark, status=ReviewRound.Status.CLOSED
            ).order_by("-created"),
            "default_anchors": DEFAULT_ANCHORS,
            "can_make": request.user.has_perm(Perm.RECORD_GATE),
        },
    )


@permission_needed(Perm.RECORD_GATE)
@require_POST
def drift_anchors_make(request: HttpRequest, slug: str, version_id: int) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    back = redirect("judge-drift", slug=slug, version_id=version_id)
    given, size = request.POST.get("round", ""), request.POST.get("responses", "")
    round_ = (
        ReviewRound.objects.filter(benchmark=benchmark, pk=int(given)).first()
        if given.isdigit()
        else None
    )
    if round_ is None or not size.isdigit():
        messages.error(request, _("Choose a closed round and a number of anchor responses."))
        return back
    try:
        anchor_set = anchor_set_create(round_=round_, responses=int(size), user=request.user)
    except AnchorsRefused as exc:
        messages.error(request, str(exc))
        return back
    messages.success(
        request,
        _("Anchor set #%(id)d made from the round %(round)s.")
        % {"id": anchor_set.pk, "round": round_.name},
    )
    return back
