"""Streamed file downloads: memory stays flat however large the file, and the bytes reach
the server in blocks, not line by line (core.tables.in_blocks)."""

from collections.abc import Iterable

from django.http import StreamingHttpResponse

from core.tables import CSV_CONTENT_TYPE, JSONL_CONTENT_TYPE, in_blocks


def streamed_download(
    pieces: Iterable[bytes | str], *, filename: str, content_type: str
) -> StreamingHttpResponse:
    """An attachment streamed in blocks (see `in_blocks`)."""
    response = StreamingHttpResponse(in_blocks(pieces), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def csv_download(lines: Iterable[bytes], filename: str) -> StreamingHttpResponse:
    """A streamed CSV attachment (lines from `core.tables.csv_lines`)."""
    return streamed_download(lines, filename=filename, content_type=CSV_CONTENT_TYPE)


def jsonl_download(lines: Iterable[bytes | str], filename: str) -> StreamingHttpResponse:
    """A streamed JSON Lines attachment."""
    return streamed_download(lines, filename=filename, content_type=JSONL_CONTENT_TYPE)
