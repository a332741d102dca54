"""Research downloads of a benchmark: the tidy long file, raw votes, verdicts, case scores,
streamed at once or prepared in the background as export jobs."""

from urllib.parse import urlencode

from django.contrib import messages
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.access import permission_needed
from annotation.models import ReviewRound, VotesSeen
from annotation.selectors.benchmarks import benchmark_get
from annotation.services.votes_seen import round_votes_seen_record
from config.broker import BrokerUnreachable
from core.downloads import streamed_download
from core.permissions import Perm
from core.tables import CSV_CONTENT_TYPE, JSONL_CONTENT_TYPE, jsonl_lines
from judging.models import JudgeRun
from judging.scoring import Profile
from leaderboard.exports.files import (
    CSV_RAW,
    CSV_SAFE,
    FORMATS,
    JSONL,
    KINDS,
    PROVENANCE,
    export_filename,
    export_lines,
)
from leaderboard.exports.provenance import export_provenance
from leaderboard.exports.services import (
    ExportRequestInvalid,
    export_job_create,
    export_job_file,
)
from leaderboard.interop.healthbench_meta import healthbench_meta_rows
from leaderboard.models import ExportJob

RECENT_JOBS = 20

CONTENT_TYPES = {
    CSV_SAFE: CSV_CONTENT_TYPE,
    CSV_RAW: CSV_CONTENT_TYPE,
    JSONL: JSONL_CONTENT_TYPE,
}


def _format_labels() -> list[tuple[str, str]]:
    return [(CSV_SAFE, _("CSV")), (CSV_RAW, _("raw CSV")), (JSONL, _("JSONL"))]


def _rounds(benchmark):
    return ReviewRound.objects.filter(benchmark=benchmark).order_by("-created", "-pk")


def _runs(benchmark):
    return JudgeRun.objects.filter(benchmark=benchmark, kind=JudgeRun.Kind.JUDGE).select_related(
        "judge_version__config"
    )


def _pick(queryset, value: str | None):
    return queryset.filter(pk=int(value)).first() if value and value.isdigit() else None


def _recent_jobs(benchmark) -> list[ExportJob]:
    return list(
        ExportJob.objects.filter(benchmark=benchmark).select_related("round", "requested_by")[
            :RECENT_JOBS
        ]
    )


def _jobs_context(benchmark) -> dict:
    jobs = _recent_jobs(benchmark)
    return {"benchmark": benchmark, "jobs": jobs, "polling": any(j.is_active for j in jobs)}


@permission_needed(Perm.EXPORT_DATA)
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
            "rounds": rounds,
            "runs": runs,
            "round": round_,
            "run": run,
            "profiles": [p.value for p in Profile],
            "profile": profile,
            "formats": _format_labels(),
            **_jobs_context(benchmark),
        },
    )


@permission_needed(Perm.EXPORT_DATA)
def export_jobs_fragment(request: HttpRequest, slug: str) -> HttpResponse:
    """The list of recent jobs alone, polled by the exports page while any is unfinished."""
    benchmark = benchmark_get(slug=slug)
    return render(request, "leaderboard/_export_jobs.html", _jobs_context(benchmark))


def _bad_request(message: str) -> HttpResponse:
    return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")


@permission_needed(Perm.EXPORT_DATA)
def export_download(request: HttpRequest, slug: str, kind: str, fmt: str) -> HttpResponse:
    if kind not in KINDS or (fmt not in FORMATS and fmt != PROVENANCE):
        raise Http404
    benchmark = benchmark_get(slug=slug)
    spec = KINDS[kind]
    round_ = run = None
    if spec.needs_round:
        round_id = request.GET.get("round", "")
        if not round_id.isdigit():
            return _bad_request(_("round=<id> is required"))
        round_ = get_object_or_404(_rounds(benchmark), pk=int(round_id))
    if spec.needs_run:
        run_id = request.GET.get("run", "")
        if not run_id.isdigit():
            return _bad_request(_("run=<id> is required"))
        run = get_object_or_404(_runs(benchmark), pk=int(run_id))
    try:
        profile = Profile(request.GET.get("profile", Profile.HEARTBENCH.value))
    except ValueError:
        return _bad_request(_("unknown profile"))
    filename = export_filename(
        slug=benchmark.slug,
        kind=kind,
        fmt=fmt,
        round_id=round_.pk if round_ else None,
        run_id=run.pk if run else None,
        profile=profile.value,
    )
    if fmt == PROVENANCE:
        record = export_provenance(kind=kind, round_=round_, run=run, profile=profile)
        response = JsonResponse(record, json_dumps_params={"ensure_ascii": False, "indent": 2})
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
    if round_ is not None:
        # A round's file (votes, tidy) carries its raters' votes: reading them is recorded.
        round_votes_seen_record(round_=round_, user=request.user, via=VotesSeen.Via.EXPORT)
    lines = export_lines(kind=kind, fmt=fmt, round_=round_, run=run, profile=profile)
    return streamed_download(lines, filename=filename, content_type=CONTENT_TYPES[fmt])


@permission_needed(Perm.EXPORT_DATA)
def healthbench_meta_download(request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
    """The round's expert votes in HealthBench's meta-evaluation format."""
    benchmark = benchmark_get(slug=slug)
    round_ = get_object_or_404(_rounds(benchmark), pk=round_id)
    export = healthbench_meta_rows(round_=round_)
    if not export.rows:
        return _bad_request(
            _(
                "No criterion of this round has been voted on by at least %(count)s experts "
                "yet: there is nothing to export."
            )
            % {"count": export.min_votes}
        )
    round_votes_seen_record(round_=round_, user=request.user, via=VotesSeen.Via.EXPORT)
    return streamed_download(
        jsonl_lines(export.rows),
        filename=f"{benchmark.slug}-healthbench-meta-round{round_.pk}.jsonl",
        content_type=CONTENT_TYPES[JSONL],
    )


@permission_needed(Perm.EXPORT_DATA)
@require_POST
def export_job_new(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    round_ = _pick(_rounds(benchmark), request.POST.get("round"))
    run = _pick(_runs(benchmark), request.POST.get("run"))
    try:
        export_job_create(
            benchmark=benchmark,
            kind=request.POST.get("kind", ""),
            fmt=request.POST.get("format", ""),
            round_=round_,
            run=run,
            profile=request.POST.get("profile", Profile.HEARTBENCH.value),
            user=request.user,
        )
    except (ExportRequestInvalid, BrokerUnreachable) as exc:
        if request.htmx:
            # A 4xx fragment is swapped in (see base.html's htmx-config); a 5xx would not be.
            context = {**_jobs_context(benchmark), "error": str(exc)}
            return render(request, "leaderboard/_export_jobs.html", context, status=400)
        messages.error(request, str(exc))
        return _back_to_page(slug, round_, run)
    if request.htmx:
        return render(request, "leaderboard/_export_jobs.html", _jobs_context(benchmark))
    messages.success(request, _("The export is being prepared; it appears below when ready."))
    return _back_to_page(slug, round_, run)


def _back_to_page(slug: str, round_, run) -> HttpResponse:
    query = urlencode({name: obj.pk for name, obj in (("round", round_), ("run", run)) if obj})
    return redirect(f"{reverse('exports', args=[slug])}?{query}#export-jobs")


@permission_needed(Perm.EXPORT_DATA)
def export_job_download(request: HttpRequest, slug: str, job_id: int) -> HttpResponse:
    job = get_object_or_404(
        ExportJob, pk=job_id, benchmark__slug=slug, status=ExportJob.Status.DONE
    )
    return export_job_file_response(job, reader=request.user)


def export_job_file_response(job: ExportJob, *, reader) -> FileResponse:
    """A finished job's file as a download (the page's link and the API's `file`); a
    round's file carries its raters' votes, and `reader` is recorded as having read them."""
    if job.round_id is not None:
        round_votes_seen_record(round_=job.round, user=reader, via=VotesSeen.Via.EXPORT)
    try:
        handle = export_job_file(job).open("rb")
    except OSError as exc:
        raise Http404(_("The export file is no longer on the server.")) from exc
    return FileResponse(
        handle,
        as_attachment=True,
        filename=job.filename,
        content_type=CONTENT_TYPES.get(job.format, "application/octet-stream"),
    )
