"""Research downloads of a benchmark: the tidy long file, raw votes, verdicts, case scores."""

import csv
import json
from collections.abc import Iterable, Iterator

from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.access import permission_needed
from annotation.downloads import jsonl_download
from annotation.models import ReviewRound
from annotation.selectors.benchmarks import benchmark_get
from judging.models import JudgeRun
from judging.scoring import Profile
from leaderboard import exports

EXPORT = "leaderboard.export_data"

# kind -> (header, needs a round, needs a run)
KINDS = {
    "tidy": (exports.TIDY_HEADER, True, True),
    "votes": (exports.VOTES_HEADER, True, False),
    "verdicts": (exports.VERDICTS_HEADER, False, True),
    "scores": (exports.SCORES_HEADER, False, True),
}
FORMATS = ("csv", "jsonl")


class _Echo:
    """A file-like object whose write() hands back what it is given, so csv.writer can
    format one row at a time into a streamed response."""

    def write(self, value: str) -> str:
        return value


def _csv_lines(header: Iterable[str], rows: Iterable[list]) -> Iterator[bytes]:
    # UTF-8 without a byte-order mark: these files feed analysis code (pandas, R, the csv
    # module), where a BOM silently becomes part of the first column's name ("\ufeffbenchmark")
    # and breaks concatenating files. Excel users open them with Data > From Text/CSV, UTF-8.
    writer = csv.writer(_Echo(), lineterminator="\n")
    yield writer.writerow(list(header)).encode("utf-8")
    for row in rows:
        yield writer.writerow(row).encode("utf-8")


def _jsonl_lines(header: Iterable[str], rows: Iterable[list]) -> Iterator[str]:
    names = list(header)
    for row in rows:
        yield json.dumps(dict(zip(names, row, strict=True)), ensure_ascii=False) + "\n"


def _rounds(benchmark):
    return ReviewRound.objects.filter(benchmark=benchmark).order_by("-created", "-pk")


def _runs(benchmark):
    return JudgeRun.objects.filter(benchmark=benchmark, kind=JudgeRun.Kind.JUDGE).select_related(
        "config"
    )


def _pick(queryset, value: str | None):
    return queryset.filter(pk=int(value)).first() if value and value.isdigit() else None


@permission_needed(EXPORT)
def exports_page(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    rounds, runs = _rounds(benchmark), _runs(benchmark)
    round_ = _pick(rounds, request.GET.get("round")) or rounds.first()
    run = _pick(runs, request.GET.get("run")) or runs.first()
    profile = request.GET.get("profile", Profile.HEARTBENCH.value)
    if profile not in {p.value for p in Profile}:
        profile = Profile.HEARTBENCH.value
    return render(
        request,
        "leaderboard/exports.html",
        {
            "benchmark": benchmark,
            "rounds": rounds,
            "runs": runs,
            "round": round_,
            "run": run,
            "profiles": [p.value for p in Profile],
            "profile": profile,
            "formats": FORMATS,
        },
    )


@permission_needed(EXPORT)
def export_download(request: HttpRequest, slug: str, kind: str, fmt: str) -> HttpResponse:
    if kind not in KINDS or fmt not in FORMATS:
        raise Http404
    benchmark = benchmark_get(slug=slug)
    header, needs_round, needs_run = KINDS[kind]
    round_ = run = None
    if needs_round:
        round_id = request.GET.get("round", "")
        if not round_id.isdigit():
            return HttpResponse("round=<id> is required", status=400, content_type="text/plain")
        round_ = get_object_or_404(_rounds(benchmark), pk=int(round_id))
    if needs_run:
        run_id = request.GET.get("run", "")
        if not run_id.isdigit():
            return HttpResponse("run=<id> is required", status=400, content_type="text/plain")
        run = get_object_or_404(_runs(benchmark), pk=int(run_id))
    profile = request.GET.get("profile", Profile.HEARTBENCH.value)
    try:
        profile = Profile(profile)
    except ValueError:
        return HttpResponse("unknown profile", status=400, content_type="text/plain")

    if kind == "tidy":
        rows = exports.tidy_rows(round_=round_, run=run)
    elif kind == "votes":
        rows = exports.votes_rows(round_=round_)
    elif kind == "verdicts":
        rows = exports.verdict_rows(run=run)
    else:
        rows = exports.case_score_rows(run=run, profile=profile)

    parts = [benchmark.slug, kind]
    if round_ is not None:
        parts.append(f"round{round_.pk}")
    if run is not None:
        parts.append(f"run{run.pk}")
    if kind == "scores":
        parts.append(profile.value)
    filename = "-".join(parts) + f".{fmt}"
    if fmt == "jsonl":
        return jsonl_download(_jsonl_lines(header, rows), filename)
    response = StreamingHttpResponse(
        _csv_lines(header, rows), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
