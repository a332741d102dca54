import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from annotation.importing.issues import ImportIssue

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class JsonLine:
    number: int
    value: Any


def read_json_lines(chunks: Iterable[bytes]) -> Iterator[JsonLine | ImportIssue]:
    """Yield each non-blank line's JSON value, or an issue saying why it could not be read.

    Takes raw bytes lines (a file opened in binary mode, or an upload) so that one bad byte
    is reported with its line instead of failing the whole file at once.
    """
    for number, raw in enumerate(chunks, start=1):
        if number == 1 and raw.startswith(BOM):
            raw = raw[len(BOM) :]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield ImportIssue(
                number,
                f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                "save the file as UTF-8",
            )
            continue
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            yield ImportIssue(number, f"invalid JSON: {exc.msg} at column {exc.colno}")
            continue
        yield JsonLine(number, value)
