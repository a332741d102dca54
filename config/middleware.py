import contextvars
import uuid
from collections.abc import Iterator

from django.conf import settings
from django.db.utils import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils.translation import gettext as _

from config.input_checks import InputRefused, check_parameters

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")

API_PREFIX = "/api/"


class RequestIdMiddleware:
    """Give each request an id (or keep the proxy's X-Request-ID), for the logs and the
    response, so one request can be followed across lines."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.headers.get("X-Request-ID", "")
        rid = incoming if 0 < len(incoming) <= 64 and incoming.isprintable() else uuid.uuid4().hex
        request.request_id = rid  # for log lines written after this middleware returned
        token = request_id.set(rid)
        try:
            response = self.get_response(request)
        finally:
            request_id.reset(token)
        response["X-Request-ID"] = rid
        return response


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(API_PREFIX)


def bad_request(request: HttpRequest, message: str) -> HttpResponse:
    """A 400 saying what is wrong: JSON for the API, a fragment for htmx, else a page."""
    if is_api(request):
        return JsonResponse({"detail": message}, status=400)
    template = "_400.html" if getattr(request, "htmx", False) else "400.html"
    return render(request, template, {"message": message}, status=400)


class DatabaseUnavailableMiddleware:
    """A database that cannot be reached is a 503 that says so, not a 500: a page, or JSON
    under /api/."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        if is_api(request):
            message = _(
                "Concord cannot reach its database. Nothing was changed; try again in a minute."
            )
            return JsonResponse({"detail": message}, status=503)
        return render(request, "503.html", {"reason": "database"}, status=503)


class InputCheckMiddleware:
    """Refuse, with a 400 naming the parameter, query strings and submitted forms that hold
    a NUL character or an unpaired surrogate (see config.input_checks); the API's JSON
    bodies are checked by its parser. Runs after the CSRF check (process_view)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        try:
            # A NUL in a part of the address (%00 in /cases/<id>/) reaches lookups too.
            parts = ((k, v) for k, v in view_kwargs.items() if isinstance(v, str))
            check_parameters(parts, where="path")
            check_parameters(_pairs(request.GET), where="query")
            # The API's bodies go through DRF's parsers and serializers, which refuse both.
            if request.method == "POST" and not is_api(request):
                try:
                    form = request.POST
                except MultiPartParserError as exc:
                    return bad_request(
                        request, _("The form could not be read (%(reason)s).") % {"reason": exc}
                    )
                check_parameters(_pairs(form), where="form")
        except InputRefused as exc:
            return bad_request(request, str(exc))
        return None


def _pairs(data) -> Iterator[tuple[str, str]]:
    for name, values in data.lists():
        for value in values:
            yield name, value


class ContentSecurityPolicyMiddleware:
    """Send settings.CONTENT_SECURITY_POLICY with every response that has none: scripts
    only from this site's files, no inline code or handlers."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response
        self.policy = settings.CONTENT_SECURITY_POLICY

    def __call__(self, request):
        response = self.get_response(request)
        if self.policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = self.policy
        return response
