from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.forms import BenchmarkImportForm, ResponsesImportForm
from annotation.importing.issues import ImportRejected
from annotation.models import ImportJob
from annotation.services.benchmark_import import benchmark_import
from annotation.services.import_jobs import (
    ImportUploadNotStored,
    import_in_background,
    import_job_create,
    import_job_progress,
)
from annotation.services.responses_import import BenchmarkNotFound, responses_import
from config.broker import BrokerUnreachable
from core.permissions import Perm

# Both forms share field names on one page; distinct ids keep each label on its own input.
RESPONSES_IDS = "id_responses_%s"
RECENT_JOBS = 10


def _render(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    context.setdefault("benchmark_form", BenchmarkImportForm())
    context.setdefault("responses_form", ResponsesImportForm(auto_id=RESPONSES_IDS))
    if request.htmx:
        return render(request, "annotation/_import_result.html", context, status=status)
    context["jobs"] = ImportJob.objects.select_related("requested_by")[:RECENT_JOBS]
    context["background_bytes"] = settings.IMPORT_BACKGROUND_BYTES
    return render(request, "annotation/import.html", context, status=status)


def _no_benchmark(slug: str) -> str:
    return _("There is no benchmark %(slug)s; import its questions first.") % {"slug": slug}


@permission_needed(Perm.IMPORT_DATA)
def import_page(request: HttpRequest) -> HttpResponse:
    return _render(request, {})


def _in_background(request: HttpRequest, kind: str, **job) -> HttpResponse:
    """Queue the upload's import for a worker and answer with the job to follow."""
    try:
        created = import_job_create(kind=kind, user=request.user, **job)
    except BenchmarkNotFound:
        message = _no_benchmark(job["benchmark_slug"])
        return _render(request, {"kind": kind, "job_error": message}, status=400)
    except (BrokerUnreachable, ImportUploadNotStored) as exc:
        # A 4xx fragment is swapped in by htmx (see base.html's htmx-config); a 5xx is not.
        return _render(request, {"kind": kind, "job_error": str(exc)}, 400 if request.htmx else 503)
    created.refresh_from_db()  # with tasks run in-process it may be finished already
    return _render(request, _job_context(created), status=202)


def _job_context(job: ImportJob) -> dict:
    return {
        "job": job,
        "progress": import_job_progress(job),
        "kind": job.kind,
        "summary": job.summary,
        "rejected": job.rejection,
        "slug": job.benchmark_slug,
    }


@permission_needed(Perm.IMPORT_DATA)
def import_benchmark_upload(request: HttpRequest) -> HttpResponse:
    form = BenchmarkImportForm(request.POST or None, request.FILES or None)
    if request.method != "POST" or not form.is_valid():
        return _render(request, {"benchmark_form": form, "kind": "benchmark"}, status=400)
    upload = form.cleaned_data["file"]
    if import_in_background(upload.size):
        return _in_background(
            request,
            ImportJob.Kind.BENCHMARK,
            chunks=upload.chunks(),
            filename=upload.name,
            benchmark_slug=form.cleaned_data["benchmark"],
            benchmark_name=form.cleaned_data["name"],
            difficulty=form.cleaned_data["difficulty"] or None,
        )
    try:
        summary = benchmark_import(
            chunks=upload,
            benchmark_slug=form.cleaned_data["benchmark"],
            benchmark_name=form.cleaned_data["name"],
            difficulty=form.cleaned_data["difficulty"] or None,
            user=request.user,
        )
    except ImportRejected as exc:
        return _render(request, {"kind": "benchmark", "rejected": exc}, status=400)
    return _render(
        request,
        {"kind": "benchmark", "summary": summary, "slug": form.cleaned_data["benchmark"]},
    )


@permission_needed(Perm.IMPORT_DATA)
def import_responses_upload(request: HttpRequest) -> HttpResponse:
    form = ResponsesImportForm(request.POST or None, request.FILES or None, auto_id=RESPONSES_IDS)
    if request.method != "POST" or not form.is_valid():
        return _render(request, {"responses_form": form, "kind": "responses"}, status=400)
    upload = form.cleaned_data["file"]
    if import_in_background(upload.size):
        return _in_background(
            request,
            ImportJob.Kind.RESPONSES,
            chunks=upload.chunks(),
            filename=upload.name,
            benchmark_slug=form.cleaned_data["benchmark"],
            system_name=form.cleaned_data["system"],
            system_kind=form.cleaned_data["kind"],
        )
    try:
        summary = responses_import(
            chunks=upload,
            benchmark_slug=form.cleaned_data["benchmark"],
            system_name=form.cleaned_data["system"],
            system_kind=form.cleaned_data["kind"],
        )
    except ImportRejected as exc:
        return _render(request, {"kind": "responses", "rejected": exc}, status=400)
    except BenchmarkNotFound:
        form.add_error("benchmark", _no_benchmark(form.cleaned_data["benchmark"]))
        return _render(request, {"responses_form": form, "kind": "responses"}, status=400)
    return _render(
        request,
        {"kind": "responses", "summary": summary, "slug": form.cleaned_data["benchmark"]},
    )


@permission_needed(Perm.IMPORT_DATA)
def import_job(request: HttpRequest, import_job_id: int) -> HttpResponse:
    """A background import: its progress, then its outcome (the page polls this)."""
    job = get_object_or_404(ImportJob.objects.select_related("requested_by"), pk=import_job_id)
    context = _job_context(job)
    if request.htmx:
        return render(request, "annotation/_import_job.html", context)
    return render(request, "annotation/import_job.html", context)
