"""How an ensemble judge decides (no Django here): its kinds, their sizes, and the majority
vote per unit (one criterion of one response).

A unit's verdict is decided only by a majority of the ensemble's full size: a member whose
call failed is no vote, so with too few answers, or a tie, the unit is undefined rather than
guessed.
"""

from dataclasses import dataclass

SELF_CONSISTENCY, PANEL = "self_consistency", "panel"
SAMPLES_MIN, SAMPLES_MAX = 3, 9
PANEL_MIN, PANEL_MAX = 2, 9


def self_consistency(samples: int) -> dict:
    return {"kind": SELF_CONSISTENCY, "samples": int(samples)}


def ensemble_size(ensemble: dict | None) -> int:
    """How many members vote (1 for a judge that is no ensemble)."""
    if not ensemble:
        return 1
    if ensemble["kind"] == SELF_CONSISTENCY:
        return int(ensemble["samples"])
    return len(ensemble["members"])


@dataclass(frozen=True)
class UnitVotes:
    """The members' votes on one unit; `failed` members gave none."""

    met: int
    not_met: int
    failed: int

    @property
    def size(self) -> int:
        return self.met + self.not_met + self.failed

    @property
    def verdict(self) -> bool | None:
        """True/False when one side holds a majority of all members, else None."""
        if 2 * self.met > self.size:
            return True
        if 2 * self.not_met > self.size:
            return False
        return None

    @property
    def disagreement(self) -> float | None:
        """The share of the members who answered that voted with the minority (0 when
        unanimous, up to 0.5 at a tie); None when nobody answered."""
        answered = self.met + self.not_met
        if not answered:
            return None
        return min(self.met, self.not_met) / answered
