"""The audit log page and its CSV and JSON Lines exports, with the same filters."""

import csv
import json
from collections.abc import Iterator

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import urlencode

from accounts.access import permission_needed
from annotation.audit_details import details_sentences
from annotation.downloads import jsonl_download, streamed_download
from annotation.models import Benchmark
from annotation.selectors.audit import (
    EXPORT_COLUMNS,
    audit_actors,
    audit_events,
    audit_export_rows,
    audit_filter_parse,
)
from config.spreadsheet import spreadsheet_text
from core.audit import registered_actions

VIEW_AUDIT = "annotation.view_audit"


@permission_needed(VIEW_AUDIT)
def audit_log(request: HttpRequest) -> HttpResponse:
    audit_filter, errors = audit_filter_parse(request.GET)
    page = Paginator(audit_events(audit_filter), 50).get_page(request.GET.get("page"))
    for event in page:
        event.details_sentences = details_sentences(event.details)
    query = urlencode(audit_filter.query())
    return render(
        request,
        "annotation/audit_log.html",
        {
            "page": page,
            "filter": audit_filter,
            "errors": errors,
            "query": query,
            "actions": [(str(action), action.label) for action in registered_actions()],
            "actors": audit_actors(),
            "benchmarks": Benchmark.objects.order_by("slug").values_list("slug", "name"),
        },
        status=400 if errors else 200,
    )


class _Echo:
    def write(self, value: str) -> str:
        return value


def _csv_lines(rows: Iterator[dict]) -> Iterator[str]:
    writer = csv.writer(_Echo(), lineterminator="\n")
    yield writer.writerow(EXPORT_COLUMNS)
    for row in rows:
        row["details"] = json.dumps(row["details"], ensure_ascii=False, sort_keys=True)
        cells = ["" if row[c] is None else row[c] for c in EXPORT_COLUMNS]
        yield writer.writerow(
            [spreadsheet_text(cell) if isinstance(cell, str) else cell for cell in cells]
        )


@permission_needed(VIEW_AUDIT)
def audit_export(request: HttpRequest, fmt: str) -> HttpResponse:
    if fmt not in ("csv", "jsonl"):
        raise Http404("No such format")
    audit_filter, errors = audit_filter_parse(request.GET)
    if errors:
        return HttpResponse("\n".join(errors), status=400, content_type="text/plain")
    rows = audit_export_rows(audit_events(audit_filter))
    if fmt == "jsonl":
        lines = (json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        return jsonl_download(lines, "audit-log.jsonl")
    return streamed_download(
        _csv_lines(rows), filename="audit-log.csv", content_type="text/csv; charset=utf-8"
    )
