"""A round's fixed split into a calibration part and a held-out part (no Django).

The calibration part may be read to improve a judge (few-shot examples, clarified
criteria, a tuned prompt); the held-out part may not, so that a judge version built from
the calibration part is judged only on items it was never shown. The split is drawn when
the items are sampled, from a recorded seed, before anyone has rated or read anything."""

import random
from collections.abc import Iterable

CALIBRATION = "calibration"
HELD_OUT = "held_out"


def calibration_split(response_ids: Iterable[int], *, share: float, seed: int) -> set[int]:
    """The responses drawn into the calibration part: `share` of them (rounded to the
    nearest whole item), by a seeded shuffle of the sorted ids. A share of 0 draws none."""
    if not 0 <= share <= 1:
        raise ValueError("the calibration share is between 0 and 1")
    ids = sorted(response_ids)
    if share == 0 or not ids:
        return set()
    # A str seed is hashed the same way in every process (unlike hash() of a tuple).
    random.Random(f"calibration-split:{seed}").shuffle(ids)
    return set(ids[: int(share * len(ids) + 0.5)])
