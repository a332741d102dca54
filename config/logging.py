"""JSON-lines log records with the request id, for production log collectors."""

import json
import logging
from datetime import UTC, datetime

from config.middleware import request_id


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        rid = request_id.get()
        if rid == "-":
            # Django logs a response's 4xx/5xx line once the middleware has returned; the
            # record carries the request, which carries its id.
            rid = getattr(getattr(record, "request", None), "request_id", "-")
        record.request_id = rid
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)
