from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.models import Benchmark, ReviewRound
from annotation.services.review_rounds import RoundInvalid
from core.permissions import Perm
from judging.forms import UncertainRoundForm
from judging.services.uncertain_rounds import uncertain_round_open


def _benchmark(request: HttpRequest) -> Benchmark | None:
    chosen = request.POST.get("benchmark") or request.GET.get("benchmark", "")
    benchmarks = Benchmark.objects.order_by("-pk")
    if chosen.isdigit():
        found = benchmarks.filter(pk=int(chosen)).first()
        if found is not None:
            return found
    return benchmarks.first()


@permission_needed(Perm.MANAGE_REVIEW)
def round_new_uncertain(request: HttpRequest) -> HttpResponse:
    """Open a round that samples more where a judge run is unsure."""
    benchmark = _benchmark(request)
    form = UncertainRoundForm(request.POST or None, benchmark=benchmark)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            round_ = uncertain_round_open(
                benchmark=data["benchmark"],
                systems=list(data["systems"]),
                run=data["judge_run"],
                second=data["second_judge_run"],
                fraction=data["fraction"],
                floor_share=data["floor_share"],
                name=data["name"],
                experts=list(data["experts"]),
                seed=data["seed"],
                raters_per_item=data["raters_per_item"],
                max_items_per_expert=data["max_items_per_expert"],
                deadline=data["deadline"],
                is_calibration=data["is_calibration"],
                show_difficulty=data["show_difficulty"],
                close_when_decided=data["close_when_decided"],
                calibration_share=data["calibration_share"] or 0.0,
                user=request.user,
            )
        except RoundInvalid as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request, _("Round opened with %(n)d items.") % {"n": round_.items.count()}
            )
            return redirect("review-round", round_id=round_.pk)
    return render(
        request,
        "annotation/review/round_new.html",
        {
            "form": form,
            "benchmark": benchmark,
            "benchmarks": Benchmark.objects.order_by("name"),
            "pilot_rounds": ReviewRound.objects.filter(benchmark=benchmark).order_by("name"),
            "uncertain": True,
        },
        status=400 if form.errors else 200,
    )
