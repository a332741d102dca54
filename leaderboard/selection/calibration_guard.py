"""The leakage guard of the calibration loop (no Django): a judge version derived from a
round's calibration part is judged on that round's held-out items only.

The units of calibration items are left out, and counted (`excluded.calibration`); when
the round has no held-out item, nothing is left to judge the version on, and the gate and
judge selection refuse with CALIBRATION_LEAK instead of deciding on the very items the
version was built from."""

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from leaderboard.gate.refusals import CALIBRATION_LEAK
from leaderboard.report.agreement import Unit
from leaderboard.report.typed import AgreementReport

# Why a derived version cannot be judged on a round (a refusal code, worded in
# leaderboard.gate.wording like the gate's others).


@dataclass(frozen=True)
class HeldOut:
    """A derived version's units on its own round, with the calibration units taken out."""

    units: list[Unit]
    excluded_units: int  # units of calibration items, left out
    calibration_items: int
    held_out_items: int

    @property
    def leak(self) -> bool:
        """Every item of the round is a calibration item: nothing is held out."""
        return self.held_out_items == 0

    def as_dict(self, *, round_name: str) -> dict:
        return {
            "derived_from_round": round_name,
            "calibration_items": self.calibration_items,
            "held_out_items": self.held_out_items,
            "excluded_units": self.excluded_units,
            "refusal": CALIBRATION_LEAK if self.leak else None,
        }


def held_out(units: Sequence[Unit], calibration: Collection[int], *, items: int) -> HeldOut:
    """`units` without those of the responses in `calibration` (the round's calibration
    part, of its `items` items)."""
    kept = [unit for unit in units if unit.response not in calibration]
    return HeldOut(
        units=kept,
        excluded_units=len(units) - len(kept),
        calibration_items=len(calibration),
        held_out_items=items - len(calibration),
    )


def with_guard(report: AgreementReport, guard: HeldOut, *, round_name: str) -> AgreementReport:
    """The agreement report of the held-out units, saying what was left out; on a leak its
    gate neither passes nor decides, and names the refusal."""
    calibration = guard.as_dict(round_name=round_name)
    gate = report.gate
    if guard.leak:
        gate = {**gate, "passed": False, "refusal": CALIBRATION_LEAK, "calibration": calibration}
    return replace(
        report,
        excluded=replace(report.excluded, calibration=guard.excluded_units),
        calibration=calibration,
        gate=gate,
    )
