from collections.abc import Iterable

from django.http import StreamingHttpResponse


def jsonl_download(lines: Iterable[str], filename: str) -> StreamingHttpResponse:
    """A streamed JSON Lines attachment: memory stays flat however large the export."""
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
