"""Cell values shared by the export tables: plain str/int values, never a guessed 0."""

# Rows per fetch of the streamed exports.
CHUNK_SIZE = 500


def flag(value: bool | None) -> int | None:
    """1/0 for a boolean, None for no value (empty in CSV, null in JSON): never a guessed 0."""
    return None if value is None else int(value)


def text(value) -> str:
    return "" if value is None else str(value)


def when(value) -> str:
    return "" if value is None else value.isoformat()


def rater_name(pseudonym: dict[int, str], expert_id: int) -> str:
    # Every rater of the round has one, an expert since removed from it too.
    return pseudonym[expert_id]
