"""/healthz: is the database reachable, and the broker? Names whichever is down."""

from django.db import connection
from django.db.utils import DatabaseError
from django.http import HttpRequest, JsonResponse

from config.celery import app as celery_app


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except DatabaseError as exc:
        return f"down: {exc.__class__.__name__}"


def _broker() -> str:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return "ok"
    except Exception as exc:  # any transport error means the workers cannot be reached
        return f"down: {exc.__class__.__name__}"


def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _database(), "broker": _broker()}
    down = [name for name, state in checks.items() if state != "ok"]
    status = 503 if down else 200
    return JsonResponse(
        {"status": "ok" if not down else "down", "down": down, **checks}, status=status
    )
