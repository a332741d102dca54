"""What a judge version is: every setting that can change a verdict, as plain data, its
fingerprint and the difference between two versions (no Django here).

Two versions with the same settings have the same fingerprint, whatever their names or
when they were made; the prompt counts by its full text, not its name.
"""

import difflib
import hashlib
import json
from dataclasses import dataclass
from typing import Any

# The settings of a version, in the order pages show them.
FIELDS = (
    "source",
    "model",
    "base_url",
    "temperature",
    "seed",
    "max_output_tokens",
    "structured_output",
    "prompt",
    "ensemble",
    "examples",
)
# An LLM called by Concord, or verdicts read from a file (nothing was called).
LLM, IMPORTED = "llm", "imported"


def prompt_settings(
    *, name: str, version: int, kind: str, language: str, system_text: str, user_text: str
) -> dict[str, Any]:
    return {
        "name": name,
        "version": version,
        "kind": kind,
        "language": language,
        "system_text": system_text,
        "user_text": user_text,
    }


def judge_settings(
    *,
    source: str = LLM,
    model: str,
    base_url: str = "",
    temperature: float = 0.0,
    seed: int | None = None,
    max_output_tokens: int = 4096,
    structured_output: bool = True,
    prompt: dict[str, Any] | None = None,
    ensemble: dict[str, Any] | None = None,
    examples: list[dict[str, Any]] | None = None,
    examples_block_version: int = 1,
) -> dict[str, Any]:
    """The settings as one canonical dict (numbers normalised, so 0 and 0.0 are one
    temperature). `ensemble` (see ensemble_vote) and few-shot examples are left out when
    there are none, so the fingerprints of the versions made before either existed stay
    what they were. Examples count with the version of the block they are rendered in: a
    changed example or format is another judge."""
    settings = {
        "source": source,
        "model": model,
        "base_url": base_url,
        "temperature": float(temperature),
        "seed": None if seed is None else int(seed),
        "max_output_tokens": int(max_output_tokens),
        "structured_output": bool(structured_output),
        "prompt": prompt,
    }
    if ensemble:
        settings["ensemble"] = ensemble
    if examples:
        settings["examples"] = {"block_version": examples_block_version, "items": list(examples)}
    return settings


def settings_fingerprint(settings: dict[str, Any]) -> str:
    canonical = json.dumps(settings, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Change:
    field: str
    before: Any
    after: Any
    # For the prompt's texts: a unified diff of the lines, else empty.
    lines: tuple[str, ...] = ()


def _prompt_changes(before: dict | None, after: dict | None) -> list[Change]:
    if before is None or after is None:
        return [] if before == after else [Change("prompt", before, after)]
    changes = []
    for key in ("name", "version", "kind", "language"):
        if before.get(key) != after.get(key):
            changes.append(Change(f"prompt.{key}", before.get(key), after.get(key)))
    for key in ("system_text", "user_text"):
        old, new = before.get(key, ""), after.get(key, "")
        if old != new:
            lines = difflib.unified_diff(
                old.splitlines(), new.splitlines(), lineterm="", n=1, fromfile="", tofile=""
            )
            changes.append(Change(f"prompt.{key}", old, new, tuple(list(lines)[2:])))
    return changes


def _examples_changes(before: dict | None, after: dict | None) -> list[Change]:
    """The few-shot examples by count, their texts as a diff (an edited explanation shows)."""
    if before == after:
        return []

    def lines(block: dict | None) -> list[str]:
        items = (block or {}).get("items", [])
        return json.dumps(items, ensure_ascii=False, indent=1, sort_keys=True).splitlines()

    diff = difflib.unified_diff(lines(before), lines(after), lineterm="", n=1)
    count = len((before or {}).get("items", [])), len((after or {}).get("items", []))
    return [Change("examples", count[0], count[1], tuple(list(diff)[2:]))]


def settings_diff(before: dict[str, Any], after: dict[str, Any]) -> list[Change]:
    """Every setting that differs between two versions, in page order."""
    changes: list[Change] = []
    for field in FIELDS:
        if field == "prompt":
            changes += _prompt_changes(before.get("prompt"), after.get("prompt"))
        elif field == "examples":
            changes += _examples_changes(before.get("examples"), after.get("examples"))
        elif before.get(field) != after.get(field):
            changes.append(Change(field, before.get(field), after.get(field)))
    return changes
