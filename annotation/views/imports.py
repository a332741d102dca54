from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.access import permission_needed
from annotation.forms import BenchmarkImportForm, ResponsesImportForm
from annotation.importing.issues import ImportRejected
from annotation.services.benchmark_import import benchmark_import
from annotation.services.responses_import import BenchmarkNotFound, responses_import

# Both forms share field names on one page; distinct ids keep each label on its own input.
RESPONSES_IDS = "id_responses_%s"


def _render(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    context.setdefault("benchmark_form", BenchmarkImportForm())
    context.setdefault("responses_form", ResponsesImportForm(auto_id=RESPONSES_IDS))
    template = "annotation/_import_result.html" if request.htmx else "annotation/import.html"
    return render(request, template, context, status=status)


@permission_needed("annotation.import_data")
def import_page(request: HttpRequest) -> HttpResponse:
    return _render(request, {})


@permission_needed("annotation.import_data")
def import_benchmark_upload(request: HttpRequest) -> HttpResponse:
    form = BenchmarkImportForm(request.POST or None, request.FILES or None)
    if request.method != "POST" or not form.is_valid():
        return _render(request, {"benchmark_form": form, "kind": "benchmark"}, status=400)
    try:
        summary = benchmark_import(
            chunks=form.cleaned_data["file"],
            benchmark_slug=form.cleaned_data["benchmark"],
            benchmark_name=form.cleaned_data["name"],
            user=request.user,
        )
    except ImportRejected as exc:
        return _render(request, {"kind": "benchmark", "rejected": exc}, status=400)
    return _render(
        request,
        {"kind": "benchmark", "summary": summary, "slug": form.cleaned_data["benchmark"]},
    )


@permission_needed("annotation.import_data")
def import_responses_upload(request: HttpRequest) -> HttpResponse:
    form = ResponsesImportForm(request.POST or None, request.FILES or None, auto_id=RESPONSES_IDS)
    if request.method != "POST" or not form.is_valid():
        return _render(request, {"responses_form": form, "kind": "responses"}, status=400)
    try:
        summary = responses_import(
            chunks=form.cleaned_data["file"],
            benchmark_slug=form.cleaned_data["benchmark"],
            system_name=form.cleaned_data["system"],
            system_kind=form.cleaned_data["kind"],
        )
    except ImportRejected as exc:
        return _render(request, {"kind": "responses", "rejected": exc}, status=400)
    except BenchmarkNotFound as exc:
        form.add_error("benchmark", str(exc))
        return _render(request, {"responses_form": form, "kind": "responses"}, status=400)
    return _render(
        request,
        {"kind": "responses", "summary": summary, "slug": form.cleaned_data["benchmark"]},
    )
