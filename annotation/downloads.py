"""Streamed file downloads: memory stays flat however large the file, and the bytes reach
the server in blocks, not line by line."""

from collections.abc import Iterable, Iterator

from django.http import StreamingHttpResponse

# A WSGI server writes each piece it is given to the socket on its own (gunicorn: one
# system call and one chunk of chunked encoding per piece), so a file of 500,000 lines
# handed over line by line spends most of its time there. Blocks of this size cost one
# write each and still keep memory flat.
BLOCK_SIZE = 64 * 1024


def in_blocks(pieces: Iterable[bytes | str], size: int = BLOCK_SIZE) -> Iterator[bytes]:
    """The same bytes as `pieces` (str pieces in UTF-8), regrouped: first an empty piece, on
    which the server sends the status line and headers at once (the download starts before
    the first query has answered), then the first piece alone (a CSV file's header line),
    then blocks of at least `size` bytes, the last one shorter."""
    yield b""
    block: list[bytes] = []
    length = 0
    first = True
    for piece in pieces:
        if piece.__class__ is str:
            piece = piece.encode("utf-8")
        if first:
            first = False
            yield piece
            continue
        block.append(piece)
        length += len(piece)
        if length >= size:
            yield b"".join(block)
            block = []
            length = 0
    if block:
        yield b"".join(block)


def streamed_download(
    pieces: Iterable[bytes | str], *, filename: str, content_type: str
) -> StreamingHttpResponse:
    """An attachment streamed in blocks (see `in_blocks`)."""
    response = StreamingHttpResponse(in_blocks(pieces), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def jsonl_download(lines: Iterable[str], filename: str) -> StreamingHttpResponse:
    """A streamed JSON Lines attachment."""
    return streamed_download(lines, filename=filename, content_type="application/x-ndjson")
