"""Small typed field readers that raise RowInvalid naming the field."""

from typing import Any

from annotation.importing.issues import RowInvalid


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
    # PostgreSQL cannot store NUL in text; refusing it here keeps a stray byte a located
    # error of the file rather than a database error in the middle of the import.
    if "\x00" in value:
        raise RowInvalid(field, "contains a NUL character (\\u0000), which cannot be stored")
    return value


def require_object(value: Any, field: str = "") -> dict:
    if not isinstance(value, dict):
        raise RowInvalid(field, f"expected a JSON object, got {_type_name(value)}")
    return value


def require_string(row: dict, key: str, *, prefix: str = "", allow_empty: bool = False) -> str:
    field = prefix + key
    if key not in row:
        raise RowInvalid(field, "missing")
    value = row[key]
    if not isinstance(value, str):
        raise RowInvalid(field, f"expected a string, got {_type_name(value)}")
    if not allow_empty and not value.strip():
        raise RowInvalid(field, "must not be empty")
    return refuse_nul(value, field)


def optional_string(row: dict, key: str, *, default: str = "") -> str:
    if key not in row or row[key] is None:
        return default
    value = row[key]
    if not isinstance(value, str):
        raise RowInvalid(key, f"expected a string, got {_type_name(value)}")
    return refuse_nul(value, key)


def require_list(row: dict, key: str, *, prefix: str = "") -> list:
    field = prefix + key
    if key not in row:
        raise RowInvalid(field, "missing")
    value = row[key]
    if not isinstance(value, list):
        raise RowInvalid(field, f"expected a list, got {_type_name(value)}")
    if not value:
        raise RowInvalid(field, "must not be empty")
    return value


def type_name(value: Any) -> str:
    return _type_name(value)
