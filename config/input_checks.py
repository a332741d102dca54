"""Input no part of the application can store or should parse: NUL characters (PostgreSQL
refuses them in text), unpaired UTF-16 surrogates ("\\ud800" in JSON, not a character at
all) and JSON nested deeper than any request of this API. Found at the door (the request
middleware and the API's JSON parser), each is a 400 naming the parameter, instead of a
database error in the middle of a view."""

import re
from collections.abc import Iterator
from typing import Any

from django.utils.translation import gettext as _

# No request body of the API is more than a few levels deep; this leaves room and still
# stops a parser long before Python's recursion limit.
MAX_JSON_DEPTH = 32
# Query parameters are ids, slugs, dates, choices and search words; none is anywhere near
# this long (and SQLite refuses LIKE patterns over 50,000 bytes).
MAX_QUERY_VALUE = 1_000

_SURROGATE = re.compile("[\ud800-\udfff]")


class InputRefused(ValueError):
    """A value no view should see; the message names the parameter, for people."""


def text_problem(value: str) -> str | None:
    """What makes `value` unusable, or None."""
    if "\x00" in value:
        return _("a NUL character (\\u0000)")
    found = _SURROGATE.search(value)
    if found:
        return _("an unpaired surrogate (\\u%(code)s), which is not a character") % {
            "code": f"{ord(found.group()):04x}"
        }
    return None


def check_parameters(items: Iterator[tuple[str, str]], *, where: str) -> None:
    """Refuse the first (name, value) pair, of a query string or a form, that holds a NUL
    or a surrogate, or a query parameter longer than MAX_QUERY_VALUE. `where` is "query",
    "path" (the address's named parts) or "form"."""
    for name, value in items:
        if where == "query" and len(value) > MAX_QUERY_VALUE:
            raise InputRefused(
                _("The query parameter “%(name)s” is longer than %(limit)d characters.")
                % {"name": _printable(name), "limit": MAX_QUERY_VALUE}
            )
        for text in (name, value):
            problem = text_problem(text)
            if problem:
                shown = _printable(name)
                if where == "query":
                    message = _("The query parameter “%(name)s” contains %(problem)s.")
                elif where == "path":
                    message = _("The part “%(name)s” of the address contains %(problem)s.")
                else:
                    message = _("The form field “%(name)s” contains %(problem)s.")
                raise InputRefused(message % {"name": shown, "problem": problem})


def check_json(value: Any) -> None:
    """Refuse parsed JSON nested deeper than MAX_JSON_DEPTH, or holding a NUL or a
    surrogate in any key or string; the message names the field ("votes[0].note")."""
    # Iterative, so that the check itself cannot run out of stack.
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_JSON_DEPTH:
                raise InputRefused(too_deep())
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                if isinstance(key, str):
                    _refuse_text(key, _join(path, key), key=True)
                    child_path = _join(path, key)
                else:
                    child_path = f"{path}[{key}]"
                stack.append((child, child_path, depth + 1))
        elif isinstance(item, str):
            _refuse_text(item, path or _("the body"), key=False)


def too_deep() -> str:
    return _("The JSON body is nested more than %(limit)d levels deep.") % {"limit": MAX_JSON_DEPTH}


def _refuse_text(text: str, path: str, *, key: bool) -> None:
    problem = text_problem(text)
    if problem:
        if key:
            message = _("A field name in the JSON body (“%(name)s”) contains %(problem)s.")
        else:
            message = _("The field “%(name)s” contains %(problem)s.")
        raise InputRefused(message % {"name": _printable(path), "problem": problem})


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _printable(name: str, limit: int = 60) -> str:
    shown = "".join(c if c.isprintable() and not _SURROGATE.match(c) else "�" for c in name)
    return shown if len(shown) <= limit else shown[:limit] + "…"
