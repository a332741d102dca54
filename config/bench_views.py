"""A view that does nothing, mounted only when CONCORD_BENCH_CEILING is set: the load bench
measures it through the same gunicorn and middleware as the real pages, as the ceiling."""

from django.http import HttpRequest, HttpResponse


def ceiling(request: HttpRequest) -> HttpResponse:
    return HttpResponse(b"ok", content_type="text/plain")
