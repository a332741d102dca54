"""Cell values shared by the export tables: plain str/int values, never a guessed 0."""

from leaderboard.stats.consensus import MAJORITY, TIE, majority

# Rows per fetch of the streamed exports.
CHUNK_SIZE = 500


def flag(value: bool | None) -> int | str:
    """1/0 for a boolean, "" for no value: never a guessed 0."""
    return "" if value is None else int(value)


def text(value) -> str:
    return "" if value is None else str(value)


def when(value) -> str:
    return "" if value is None else value.isoformat()


def consensus_cell(hits: list[bool]) -> int | str:
    if not hits:
        return "none"
    verdict = majority(hits)
    if verdict.outcome == MAJORITY:
        return int(verdict.label)
    return "tie" if verdict.outcome == TIE else "none"


def rater_name(pseudonym: dict[int, str], expert_id: int) -> str:
    # An expert since removed from the round keeps a pseudonym built from the id (never a name).
    return pseudonym.get(expert_id, f"E{expert_id}")
