"""Small typed field readers that raise RowInvalid naming the field."""

import re
from typing import Any

from annotation.importing.issues import RowInvalid
from annotation.importing.issues import _ as _

# Half of a UTF-16 pair on its own ("\ud800" in JSON): Python reads it, but it is not a
# character, so no database (nor UTF-8) can store it.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _type_name(value: Any) -> str:
    return {
        type(None): "null",
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "list",
        dict: "object",
    }.get(type(value), type(value).__name__)


def refuse_nul(value: str, field: str) -> str:
    """The value, unless it holds something no database can store: a located error of the
    file rather than a database error in the middle of the import."""
    # PostgreSQL cannot store NUL in text.
    if "\x00" in value:
        raise RowInvalid(field, _("contains a NUL character (\\u0000), which cannot be stored"))
    surrogate = _SURROGATE.search(value)
    if surrogate:
        raise RowInvalid(
            field,
            _(
                "contains an unpaired surrogate (\\u%(code)s), which is not a character; "
                "save the file as UTF-8 from the original text",
                code=f"{ord(surrogate.group()):04x}",
            ),
        )
    return value


def refuse_longer(value: str, field: str, limit: int | None) -> str:
    if limit is not None and len(value) > limit:
        raise RowInvalid(
            field,
            _(
                "is %(length)d characters long; at most %(limit)d are allowed",
                length=len(value),
                limit=limit,
            ),
        )
    return value


def require_object(value: Any, field: str = "") -> dict:
    if not isinstance(value, dict):
        raise RowInvalid(field, _("expected a JSON object, got %(type)s", type=_type_name(value)))
    return value


def require_string(
    row: dict,
    key: str,
    *,
    prefix: str = "",
    allow_empty: bool = False,
    strip: bool = False,
    max_length: int | None = None,
) -> str:
    """The string at `key`; `strip` takes surrounding spaces off before the length check."""
    field = prefix + key
    if key not in row:
        raise RowInvalid(field, _("missing"))
    value = row[key]
    if not isinstance(value, str):
        raise RowInvalid(field, _("expected a string, got %(type)s", type=_type_name(value)))
    if not allow_empty and not value.strip():
        raise RowInvalid(field, _("must not be empty"))
    value = refuse_nul(value, field)
    return refuse_longer(value.strip() if strip else value, field, max_length)


def optional_string(
    row: dict, key: str, *, default: str = "", strip: bool = False, max_length: int | None = None
) -> str:
    if key not in row or row[key] is None:
        return default
    value = row[key]
    if not isinstance(value, str):
        raise RowInvalid(key, _("expected a string, got %(type)s", type=_type_name(value)))
    value = refuse_nul(value, key)
    return refuse_longer(value.strip() if strip else value, key, max_length)


def require_list(row: dict, key: str, *, prefix: str = "") -> list:
    field = prefix + key
    if key not in row:
        raise RowInvalid(field, _("missing"))
    value = row[key]
    if not isinstance(value, list):
        raise RowInvalid(field, _("expected a list, got %(type)s", type=_type_name(value)))
    if not value:
        raise RowInvalid(field, _("must not be empty"))
    return value


def type_name(value: Any) -> str:
    return _type_name(value)
