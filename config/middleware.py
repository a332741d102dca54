import contextvars
import uuid

from django.db.utils import InterfaceError, OperationalError
from django.shortcuts import render

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")


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


class DatabaseUnavailableMiddleware:
    """A database that cannot be reached is a 503 page that says so, not a 500."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, OperationalError | InterfaceError):
            return render(request, "503.html", {"reason": "database"}, status=503)
        return None
