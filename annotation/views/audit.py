"""The audit log page and its CSV and JSON Lines exports, with the same filters."""

import json
from collections.abc import Iterator

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import urlencode

from accounts.access import permission_needed
from annotation.audit_details import details_sentences
from annotation.models import Benchmark
from annotation.selectors.audit import (
    EXPORT_COLUMNS,
    audit_actors,
    audit_events,
    audit_export_rows,
    audit_filter_parse,
)
from core.audit import registered_actions
from core.downloads import csv_download, jsonl_download
from core.permissions import Perm
from core.tables import csv_lines, jsonl_lines


@permission_needed(Perm.VIEW_AUDIT)
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


def _csv_rows(rows: Iterator[dict]) -> Iterator[list]:
    for row in rows:
        row["details"] = json.dumps(row["details"], ensure_ascii=False, sort_keys=True)
        yield [row[c] for c in EXPORT_COLUMNS]


@permission_needed(Perm.VIEW_AUDIT)
def audit_export(request: HttpRequest, fmt: str) -> HttpResponse:
    if fmt not in ("csv", "jsonl"):
        raise Http404("No such format")
    audit_filter, errors = audit_filter_parse(request.GET)
    if errors:
        return HttpResponse("\n".join(errors), status=400, content_type="text/plain")
    rows = audit_export_rows(audit_events(audit_filter))
    if fmt == "jsonl":
        return jsonl_download(jsonl_lines(rows), "audit-log.jsonl")
    return csv_download(csv_lines(EXPORT_COLUMNS, _csv_rows(rows), safe=True), "audit-log.csv")
