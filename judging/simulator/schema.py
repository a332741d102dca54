"""A value that validates against a JSON schema, from a practical subset of JSON Schema.

Supported: type (also a list of types), object/properties/required, array/items/minItems/
maxItems, string (minLength/maxLength and a few formats), boolean, integer and number
(minimum/maximum, exclusive bounds), null, enum, const, anyOf/oneOf (the first non-null
choice), allOf (merged), and local `$ref`s (`#/$defs/...`, `#/definitions/...`). `pattern`
and `multipleOf` are not honoured. The actual values come from a `Filler`, so the caller
decides what a boolean or a string at a given path should be.
"""

from dataclasses import dataclass
from typing import Protocol

Path = tuple[str | int, ...]
MAX_DEPTH = 24
FORMATS = {
    "date-time": "2025-01-01T00:00:00Z",
    "date": "2025-01-01",
    "time": "00:00:00",
    "email": "simulator@example.com",
    "uri": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
}


class Filler(Protocol):
    def boolean(self, path: Path) -> bool: ...
    def string(self, path: Path) -> str: ...
    def integer(self, path: Path, lo: int, hi: int) -> int: ...
    def number(self, path: Path, lo: float, hi: float) -> float: ...
    def choice(self, path: Path, options: list) -> object: ...
    def array_length(self, path: Path, lo: int, hi: int | None) -> int: ...


def resolve(schema: object, root: dict) -> dict:
    """Follow local `$ref`s (sibling keys of a `$ref` are kept) and merge `allOf`."""
    if not isinstance(schema, dict):
        return {}  # `true` or a malformed subschema: anything goes
    for _ in range(MAX_DEPTH):
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            break
        target = _pointer(root, ref)
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    if isinstance(schema.get("allOf"), list):
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            part = resolve(part, root)
            merged["properties"] = {**merged.get("properties", {}), **part.get("properties", {})}
            merged["required"] = [*merged.get("required", []), *part.get("required", [])]
            for key, value in part.items():
                merged.setdefault(key, value)
        schema = merged
    return schema


def _pointer(root: dict, ref: str) -> dict:
    if not ref.startswith("#"):
        return {}
    node: object = root
    for token in ref[1:].split("/"):
        if not token:
            continue
        token = token.replace("~1", "/").replace("~0", "~")
        node = node.get(token, {}) if isinstance(node, dict) else {}
    return node if isinstance(node, dict) else {}


def schema_type(schema: dict) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if isinstance(kind, str):
        return kind
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return "string"


def generate(schema: object, filler: Filler, root: dict | None = None, path: Path = ()) -> object:
    root = schema if root is None and isinstance(schema, dict) else (root or {})
    schema = resolve(schema, root)
    if len(path) > MAX_DEPTH:
        return None
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return filler.choice(path, schema["enum"])
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            resolved = [resolve(option, root) for option in options]
            chosen = next((o for o in resolved if schema_type(o) != "null"), resolved[0])
            rest = {k: v for k, v in schema.items() if k != key}
            return generate({**rest, **chosen}, filler, root, path)
    kind = schema_type(schema)
    if kind == "object":
        props = schema.get("properties") or {}
        out = {name: generate(sub, filler, root, (*path, name)) for name, sub in props.items()}
        for name in schema.get("required") or []:
            if name not in out:
                out[name] = filler.string((*path, name))
        return out
    if kind == "array":
        lo = int(schema.get("minItems", 0))
        hi = schema.get("maxItems")
        items = schema.get("items", {})
        if isinstance(items, list):  # old tuple form
            return [generate(sub, filler, root, (*path, i)) for i, sub in enumerate(items)]
        count = filler.array_length(path, lo, None if hi is None else max(lo, int(hi)))
        return [generate(items, filler, root, (*path, i)) for i in range(count)]
    if kind == "boolean":
        return filler.boolean(path)
    if kind == "integer":
        lo, hi = _bounds(schema, 0, 10)
        return filler.integer(path, int(-(-lo // 1)), int(hi // 1))
    if kind == "number":
        lo, hi = _bounds(schema, 0.0, 1.0)
        return filler.number(path, float(lo), float(hi))
    if kind == "null":
        return None
    text = FORMATS.get(schema.get("format")) or filler.string(path)
    min_len, max_len = int(schema.get("minLength", 0)), schema.get("maxLength")
    while len(text) < min_len:
        text += " " + text
    return text[: int(max_len)] if max_len is not None else text


def _bounds(schema: dict, default_lo: float, span: float) -> tuple[float, float]:
    lo = schema.get("minimum")
    hi = schema.get("maximum")
    step = 1 if schema_type(schema) == "integer" else 1e-6
    if isinstance(schema.get("exclusiveMinimum"), int | float):
        lo = schema["exclusiveMinimum"] + step
    if isinstance(schema.get("exclusiveMaximum"), int | float):
        hi = schema["exclusiveMaximum"] - step
    if lo is None:
        lo = default_lo if hi is None or hi >= default_lo else hi - span
    if hi is None or hi < lo:
        hi = lo + span
    return lo, hi


@dataclass(frozen=True)
class VerdictArray:
    """Where the per-criterion verdicts sit in a judge schema."""

    key: str
    min_items: int
    max_items: int | None
    hit_key: str | None


def locate_verdicts(schema: object) -> VerdictArray | None:
    """The top-level `verdicts` array, or else the first top-level array of objects that
    have a boolean property; None when the schema has neither."""
    if not isinstance(schema, dict):
        return None
    root = resolve(schema, schema)
    props = root.get("properties") or {}
    candidates = sorted(props, key=lambda name: name != "verdicts")
    for name in candidates:
        sub = resolve(props[name], schema)
        if schema_type(sub) != "array":
            continue
        item = resolve(sub.get("items", {}), schema)
        booleans = [
            key
            for key, value in (item.get("properties") or {}).items()
            if schema_type(resolve(value, schema)) == "boolean"
        ]
        if name != "verdicts" and not booleans:
            continue
        hit_key = "hit" if "hit" in booleans else (booleans[0] if booleans else None)
        max_items = sub.get("maxItems")
        return VerdictArray(
            name,
            int(sub.get("minItems", 0)),
            None if max_items is None else int(max_items),
            hit_key,
        )
    return None
