from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.access import permission_needed
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from judging.models import JudgeRun
from judging.selectors.runs import latest_finished_run
from judging.selectors.saturation import saturated_criteria


@permission_needed(Perm.VIEW_JUDGERUN)
def saturated(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    runs = JudgeRun.objects.filter(benchmark=benchmark, status=JudgeRun.Status.FINISHED)
    run_id = request.GET.get("run", "")
    run = (
        get_object_or_404(runs, pk=int(run_id))
        if run_id.isdigit()
        else latest_finished_run(benchmark=benchmark)
    )
    rows = saturated_criteria(benchmark=benchmark, run=run) if run else []
    return render(
        request,
        "judging/saturated.html",
        {
            "benchmark": benchmark,
            "run": run,
            "runs": runs.select_related("judge_version__config"),
            "rows": rows,
        },
    )
