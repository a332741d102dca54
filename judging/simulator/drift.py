"""A judge that drifts: from the `drift_after`-th chat completion on (counted since the
server started or was reset), verdicts are drawn at `drift_hit_rate` instead of
`hit_rate`, and the reply's `system_fingerprint` changes, as when a provider silently
swaps the model behind a name. `drift_after` < 0 (the default) never drifts; 0 drifts at
once, so a test can switch between two runs with `POST /_sim/config`."""

import threading

FINGERPRINT = "concord-simulator"
DRIFTED_FINGERPRINT = "concord-simulator-drifted"


class CompletionClock:
    """How many chat completions the server has answered (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._served = 0

    def tick(self) -> int:
        """The number of completions answered before this one."""
        with self._lock:
            served = self._served
            self._served += 1
            return served

    def reset(self) -> None:
        with self._lock:
            self._served = 0


def behaviour(settings, served: int) -> tuple[float, str]:
    """(hit rate, system fingerprint) of the completion answered after `served` others."""
    if 0 <= settings.drift_after <= served:
        return settings.drift_hit_rate, DRIFTED_FINGERPRINT
    return settings.hit_rate, FINGERPRINT
