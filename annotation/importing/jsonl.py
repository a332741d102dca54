import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from annotation.importing.issues import ImportIssue
from annotation.importing.issues import _ as _

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
                _(
                    "not valid UTF-8 (byte 0x%(byte)02x at column %(column)d); "
                    "save the file as UTF-8",
                    byte=raw[exc.start],
                    column=exc.start + 1,
                ),
            )
            continue
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            yield ImportIssue(
                number,
                _(
                    "invalid JSON: %(reason)s at column %(column)d",
                    reason=exc.msg,
                    column=exc.colno,
                ),
            )
            continue
        except ValueError:
            # Python reads integers of at most 4,300 digits (sys.get_int_max_str_digits).
            yield ImportIssue(number, _("a number on this line has too many digits to be read"))
            continue
        except RecursionError:
            # Python's parser gives up on brackets nested about a thousand deep; no row of
            # any format here is more than four levels deep.
            yield ImportIssue(number, _("the JSON is nested too deeply to be a row of this file"))
            continue
        yield JsonLine(number, value)
