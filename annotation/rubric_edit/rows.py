import uuid
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class RubricRow:
    """One criterion as the editor holds it. `weight` is None for an unweighted
    (catastrophic) criterion; `key` follows the criterion across versions."""

    key: str
    ability: str
    weight: int | str | None  # a str is unparsable input, kept so validation can name it
    text: str

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "RubricRow":
        return cls(
            key=str(data.get("key") or uuid.uuid4()),
            ability=str(data.get("ability") or ""),
            weight=data.get("weight"),
            text=str(data.get("text") or ""),
        )

    def same_content(self, other: "RubricRow") -> bool:
        return (self.ability, self.weight, self.text) == (other.ability, other.weight, other.text)


def new_row(ability: str = "", weight: int | None = None, text: str = "") -> RubricRow:
    return RubricRow(key=str(uuid.uuid4()), ability=ability, weight=weight, text=text)


def parse_weight_input(raw: str) -> int | str | None:
    """The weight box's text as an int, None when blank, or the raw text when it is not
    a whole number (validation then names it)."""
    raw = raw.strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        return raw


def apply_action(rows: list[RubricRow], action: str) -> list[RubricRow]:
    """Structural edits named by the editor's buttons: `add`, `remove:KEY`, `up:KEY`,
    `down:KEY`. Unknown actions and keys leave the rows as they are."""
    rows = list(rows)
    verb, _, key = action.partition(":")
    if verb == "add":
        return [*rows, new_row()]
    index = next((i for i, row in enumerate(rows) if row.key == key), None)
    if index is None:
        return rows
    if verb == "remove":
        del rows[index]
    elif verb == "up" and index > 0:
        rows[index - 1], rows[index] = rows[index], rows[index - 1]
    elif verb == "down" and index < len(rows) - 1:
        rows[index + 1], rows[index] = rows[index], rows[index + 1]
    return rows


def assign_missing_keys(rows: list[RubricRow], previous: list[RubricRow]) -> list[RubricRow]:
    """Rows sent without a key take the key of an unclaimed previous criterion with the same
    text (so an unchanged criterion keeps its identity), or a fresh one."""
    claimed = {row.key for row in rows if row.key}
    by_text: dict[str, list[str]] = {}
    for row in previous:
        if row.key not in claimed:
            by_text.setdefault(row.text, []).append(row.key)
    result = []
    for row in rows:
        if not row.key:
            keys = by_text.get(row.text)
            key = keys.pop(0) if keys else str(uuid.uuid4())
            row = RubricRow(key=key, ability=row.ability, weight=row.weight, text=row.text)
        result.append(row)
    return result
