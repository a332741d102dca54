"""Concord's own 404 page for every expected miss, in local mode (DEBUG on) too, where
Django would show its debug page with the list of URL patterns to whoever follows a stale
link. The API answers in JSON, as it does for every other error."""

from collections.abc import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from config.middleware import is_api


def not_found_page(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"detail": _("Not found.")}, status=404)
    return render(request, "404.html", status=404)


class NotFoundPageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # No URL pattern matched: in local mode that response is Django's debug page.
        unmatched = getattr(request, "resolver_match", None) is None
        if settings.DEBUG and response.status_code == 404 and unmatched:
            return not_found_page(request)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception):
        if isinstance(exception, Http404):
            return not_found_page(request)
        return None
