"""Three-way rebase of a draft (made from `base`) onto a newer published version."""

from dataclasses import dataclass

from annotation.rubric_edit.rows import RubricRow


@dataclass(frozen=True)
class RebaseResult:
    rows: list[RubricRow]
    # key -> the other editor's row (or None when they removed it) where both changed
    # the same criterion differently; the draft keeps its own wording for the author to
    # settle, nothing is dropped.
    conflicts: dict[str, RubricRow | None]


def rebase(base: list[RubricRow], mine: list[RubricRow], theirs: list[RubricRow]) -> RebaseResult:
    base_by_key = {row.key: row for row in base}
    mine_by_key = {row.key: row for row in mine}
    theirs_by_key = {row.key: row for row in theirs}
    conflicts: dict[str, RubricRow | None] = {}
    result: list[RubricRow] = []

    for row in theirs:
        original = base_by_key.get(row.key)
        my_row = mine_by_key.get(row.key)
        if original is None:
            result.append(row)  # they added it
        elif my_row is None:
            # I removed it: keep it removed unless they changed it meanwhile.
            if not row.same_content(original):
                result.append(row)
                conflicts[row.key] = row
        elif my_row.same_content(original):
            result.append(row)  # only they (maybe) changed it
        elif row.same_content(original) or row.same_content(my_row):
            result.append(my_row)  # only I changed it, or we agree
        else:
            result.append(my_row)
            conflicts[row.key] = row

    # My rows that are not in theirs: ones I added, or ones they removed.
    placed = {row.key for row in result}
    for index, row in enumerate(mine):
        if row.key in placed:
            continue
        original = base_by_key.get(row.key)
        if original is not None and row.key not in theirs_by_key:
            if row.same_content(original):
                continue  # they removed it and I had not touched it
            conflicts[row.key] = None  # they removed what I changed: keep mine, flag it
        anchor = _previous_placed_key(mine, index, placed)
        at = 0 if anchor is None else next(i for i, r in enumerate(result) if r.key == anchor) + 1
        result.insert(at, row)
        placed.add(row.key)
    return RebaseResult(rows=result, conflicts=conflicts)


def _previous_placed_key(rows: list[RubricRow], index: int, placed: set[str]) -> str | None:
    for row in reversed(rows[:index]):
        if row.key in placed:
            return row.key
    return None
