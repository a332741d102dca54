"""Hostile values for the fuzzers (API parameters and bodies, page forms, import fields):
JSON nested 100,000 deep, lone UTF-16 surrogates, NUL characters and over-long strings,
each wrapped in some ordinary text that hypothesis varies."""

import json
from functools import lru_cache
from urllib.parse import quote

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

KINDS = ("nul", "surrogate", "long", "deep")
DEPTH = 100_000
# Longer than every text column the application has (the longest is 500 characters).
LONG = 5_000

_plain = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=8)


def repeatable(examples: int) -> settings:
    """The fuzzers' hypothesis settings: the same examples on every run (no randomness, no
    example database), no deadline, and no health check (slow requests are the point)."""
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )


def hostile(kind: str) -> st.SearchStrategy[str]:
    """Strings of one kind; "deep" is JSON-like text of brackets nested DEPTH deep."""
    if kind == "nul":
        return st.builds(lambda a, b: f"{a}\x00{b}", _plain, _plain)
    if kind == "surrogate":
        return st.builds(
            lambda a, code, b: f"{a}{chr(code)}{b}", _plain, st.integers(0xD800, 0xDFFF), _plain
        )
    if kind == "long":
        return st.builds(
            lambda n, char: char * n,
            st.integers(LONG, 3 * LONG),
            st.sampled_from(["x", "长", "é", "1"]),
        )
    if kind == "deep":
        return st.sampled_from(["[" * DEPTH, '{"a":' * DEPTH + "1" + "}" * DEPTH])
    raise ValueError(kind)


# JSON's punctuation needs no escape in a query or a form body (the parser takes any byte
# but "%", "&", "+" and "="), and a client may send it as it is: the nested brackets then
# cost a request their length, not three times it.
JSON_PUNCTUATION = '[]{}":,'


@lru_cache(maxsize=256)
def url_encoded(value: str) -> str:
    """A value for a URL or a form body, percent-encoded but for JSON's punctuation; a lone
    surrogate goes as the bytes a careless client would send for it (ED A0 80 ...), which
    are not UTF-8."""
    return quote(value.encode("utf-8", "surrogatepass"), safe=JSON_PUNCTUATION)


def raw_json_with(body: dict, field: str, value: str, kind: str) -> bytes:
    """The JSON text of `body` with `field` set to `value`: as a string, or for "deep" as
    the nested brackets themselves (no encoder can write that many levels)."""
    marker = "\x01hostile\x01"
    text = json.dumps({**body, field: marker if kind == "deep" else value})
    if kind == "deep":
        text = text.replace(json.dumps(marker), value)
    return text.encode("utf-8")
