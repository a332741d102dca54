"""Views that do nothing, mounted only when CONCORD_BENCH_CEILING is set: the load bench
measures them through the same gunicorn and middleware as the real pages. The bare view is
the ceiling of the stack; the signed-in one is the floor of every page an expert opens (the
session, the user and a permission, read as every such page reads them)."""

from django.http import HttpRequest, HttpResponse

from accounts.access import permission_needed
from core.permissions import Perm


def ceiling(request: HttpRequest) -> HttpResponse:
    return HttpResponse(b"ok", content_type="text/plain")


@permission_needed(Perm.ANNOTATE)
def signed_in_floor(request: HttpRequest) -> HttpResponse:
    return HttpResponse(b"ok", content_type="text/plain")
