"""Ranks that admit uncertainty: each system's rank band is the range of places it could
hold given the 95% intervals. A system is surely behind another only when its interval lies
wholly below the other's; systems whose intervals overlap share places. Pure (no Django)."""

from collections.abc import Sequence

Bounds = tuple[float, float] | None


def rank_bands(points: Sequence[float | None], intervals: Sequence[Bounds]) -> list[tuple | None]:
    """(best, worst) place of each system, 1 the best; None for a system without a score.
    A system without an interval counts as the point itself (the band then only widens
    through the other systems' intervals)."""
    bounds: list[Bounds] = [
        None if point is None else (interval or (point, point))
        for point, interval in zip(points, intervals, strict=True)
    ]
    bands: list[tuple | None] = []
    for mine in bounds:
        if mine is None:
            bands.append(None)
            continue
        low, high = mine
        surely_ahead = sum(1 for other in bounds if other is not None and other[0] > high)
        possibly_ahead_or_level = sum(
            1 for other in bounds if other is not None and other[1] >= low
        )
        bands.append((surely_ahead + 1, max(surely_ahead + 1, possibly_ahead_or_level)))
    return bands


def band_text(band: tuple | None) -> str:
    if band is None:
        return "—"
    best, worst = band
    return str(best) if best == worst else f"{best}–{worst}"
