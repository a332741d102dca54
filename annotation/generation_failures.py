"""Which responses are failed generations rather than replies (no Django).

HeartBench's generation script writes a reply that could not be obtained as text beginning
with "Error" (the exception it caught), and its scorer skips such responses. Concord keeps
them, flagged, so that nothing is lost, and leaves them out of judge runs and review rounds
unless asked. An empty reply is no reply either."""

FAILED_GENERATION_PREFIX = "Error"


def is_failed_generation(text: str) -> bool:
    stripped = text.strip()
    return not stripped or stripped.startswith(FAILED_GENERATION_PREFIX)
