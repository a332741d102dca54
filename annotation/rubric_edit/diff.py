from dataclasses import dataclass, field
from enum import StrEnum

from annotation.rubric_edit.rows import RubricRow


class Change(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class DiffEntry:
    change: Change
    old: RubricRow | None
    new: RubricRow | None
    old_position: int | None = None
    new_position: int | None = None
    fields: frozenset[str] = field(default_factory=frozenset)

    @property
    def moved(self) -> bool:
        return (
            self.old_position is not None
            and self.new_position is not None
            and self.old_position != self.new_position
        )


def diff_rows(old: list[RubricRow], new: list[RubricRow]) -> list[DiffEntry]:
    """Entries in the new order, with removed criteria placed after their old neighbour.

    Criteria are matched by key; `fields` names what changed (ability, weight, text).
    """
    old_by_key = {row.key: (i + 1, row) for i, row in enumerate(old)}
    new_keys = {row.key for row in new}
    entries: list[DiffEntry] = []
    for position, row in enumerate(new, start=1):
        found = old_by_key.get(row.key)
        if found is None:
            entries.append(DiffEntry(Change.ADDED, None, row, None, position))
            continue
        old_position, before = found
        changed = frozenset(
            name
            for name in ("ability", "weight", "text")
            if getattr(before, name) != getattr(row, name)
        )
        entries.append(
            DiffEntry(
                Change.CHANGED if changed else Change.UNCHANGED,
                before,
                row,
                old_position,
                position,
                changed,
            )
        )
    for old_position, row in ((i + 1, r) for i, r in enumerate(old)):
        if row.key in new_keys:
            continue
        # Insert after the entry that followed the same old predecessor.
        at = next(
            (
                i + 1
                for i, entry in enumerate(entries)
                if entry.old_position is not None and entry.old_position == old_position - 1
            ),
            len(entries) if old_position > 1 else 0,
        )
        entries.insert(at, DiffEntry(Change.REMOVED, row, None, old_position, None))
    return entries


def has_changes(entries: list[DiffEntry]) -> bool:
    return any(entry.change != Change.UNCHANGED or entry.moved for entry in entries)
