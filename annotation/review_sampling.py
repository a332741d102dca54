"""Stratified, reproducible sampling of responses for a review round (no Django)."""

import math
import random
from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Unit:
    response_id: int
    stratum: Hashable  # e.g. (difficulty, scenario, system)


def stratified_sample(
    units: Iterable[Unit], *, fraction: float, seed: int, exclude: set[int] | None = None
) -> list[int]:
    """About `fraction` of the units, the same share from every stratum.

    Each stratum gets floor(fraction * n) units, and the leftover units needed to reach
    round(fraction * total) go to the strata with the largest remainders, so small strata
    are not all rounded away. Within a stratum the choice is a seeded shuffle of the sorted
    ids, so the same data and seed always give the same sample. `exclude` (units already
    sampled) are skipped when extending a round.
    """
    if not 0 < fraction <= 1:
        raise ValueError("fraction must be in (0, 1]")
    exclude = exclude or set()
    strata: dict[Hashable, list[int]] = defaultdict(list)
    total = 0
    for unit in units:
        total += 1
        if unit.response_id not in exclude:
            strata[unit.stratum].append(unit.response_id)
    target = round(fraction * total) - len(exclude)
    if target <= 0:
        return []
    keys = sorted(strata, key=repr)
    available = sum(len(strata[k]) for k in keys)
    target = min(target, available)
    share = {k: target * len(strata[k]) / available for k in keys}
    counts = {k: math.floor(share[k]) for k in keys}
    leftover = target - sum(counts.values())
    rng = random.Random(seed)
    # Equal remainders (common with many small strata) are broken by the seeded draw, not
    # by the strata's names: sorting names would favour e.g. "hard" over "normal".
    tiebreak = {k: rng.random() for k in keys}
    for k in sorted(keys, key=lambda k: (-(share[k] - counts[k]), tiebreak[k]))[:leftover]:
        counts[k] += 1
    chosen: list[int] = []
    for k in keys:
        ids = sorted(strata[k])
        rng.shuffle(ids)
        chosen.extend(ids[: counts[k]])
    return sorted(chosen)


# The sampling designs a round may use. Proportional: the same share from every stratum
# (difficulty, scene, system), which gives every response about the same chance (today's
# rounds). By system: the same number of items from every system, whatever its size.
# Uncertainty: chances given by the caller (more where the judge is unsure), drawn each on
# its own (below).
PROPORTIONAL, BY_SYSTEM, UNCERTAINTY = "proportional", "by_system", "uncertainty"
DESIGNS = (PROPORTIONAL, BY_SYSTEM, UNCERTAINTY)


def equal_per_system_sample(
    units: Iterable[Unit],
    *,
    fraction: float,
    seed: int,
    system_of,
    exclude: set[int] | None = None,
) -> list[int]:
    """About `fraction` of the units in all, the same number from every system
    (`system_of(stratum)` names a unit's system), capped by a system's size: what a small
    system cannot give is shared among the others. Within a system the choice is a seeded
    shuffle of the sorted ids; `exclude` (units already sampled) count towards their
    system's number when extending a round."""
    if not 0 < fraction <= 1:
        raise ValueError("fraction must be in (0, 1]")
    exclude = exclude or set()
    free: dict[Hashable, list[int]] = defaultdict(list)
    size: dict[Hashable, int] = defaultdict(int)
    have: dict[Hashable, int] = defaultdict(int)
    for unit in units:
        system = system_of(unit.stratum)
        size[system] += 1
        if unit.response_id in exclude:
            have[system] += 1
        else:
            free[system].append(unit.response_id)
    keys = sorted(size, key=repr)
    target = round(fraction * sum(size.values()))
    rng = random.Random(seed)
    want = {k: 0 for k in keys}
    # Water-filling: one item per system in turn (a seeded order), skipping full systems.
    order = list(keys)
    rng.shuffle(order)
    left = min(target, sum(size.values()))
    while left > 0:
        for k in order:
            if left and want[k] < size[k]:
                want[k] += 1
                left -= 1
    chosen: list[int] = []
    for k in keys:
        ids = sorted(free[k])
        rng.shuffle(ids)
        chosen.extend(ids[: max(0, want[k] - have[k])])
    return sorted(chosen)


def inclusion_probabilities(
    units: Iterable[Unit], sampled: set[int], *, stratum_of
) -> dict[int, float]:
    """Each sampled response's inclusion probability: within its group (`stratum_of` of the
    unit's stratum), how many were drawn over how many there are. Within a group every
    response is equally likely to be drawn, first or by an extension, so this is the
    chance the design gave it."""
    population: dict[Hashable, int] = defaultdict(int)
    drawn: dict[Hashable, int] = defaultdict(int)
    members: dict[int, Hashable] = {}
    for unit in units:
        key = stratum_of(unit.stratum)
        population[key] += 1
        if unit.response_id in sampled:
            drawn[key] += 1
            members[unit.response_id] = key
    return {pk: drawn[key] / population[key] for pk, key in members.items()}


def hand_out_order(response_ids: Iterable[int], *, seed: int, start: int = 0) -> dict[int, int]:
    """Each response's rank in the order its item is handed out: a seeded shuffle of the
    sorted ids, numbered from `start` (items added later come after the first ones).

    Response ids follow the import, one system after another; handing items out in that
    order would show an expert one system's answers in a block."""
    ids = sorted(response_ids)
    # A str seed is hashed the same way in every process (unlike hash() of a tuple).
    random.Random(f"hand-out:{seed}:{start}").shuffle(ids)
    return {response_id: start + rank for rank, response_id in enumerate(ids)}


# Responses drawn with more weight where the judge is unsure (active statistical inference,
# Zrnic and Candès, ICML 2024). The floor, a share of the mean uncertainty, keeps every
# response's chance above 0, so every inverse weight exists and the weighted estimates stay
# unbiased. It also bounds the weights: a response the judge is sure of is drawn
# floor_share / (1 + floor_share) times as often as one of average uncertainty. At 1 (half
# as often), the simulated agreement interval is about 4% narrower than uniform sampling's
# at the same size; at 0.1 the rare sure responses' large weights make it about 38% wider
# (bench/uncertainty_sampling.py).
FLOOR_SHARE = 1.0
# Past this the floor swamps the uncertainty and the design is uniform in all but name.
FLOOR_SHARE_MAX = 100


def probabilities_by_size(
    sizes: dict[int, float], *, fraction: float, floor_share: float = FLOOR_SHARE
) -> dict[int, float]:
    """Each response's inclusion probability pi_i = min(1, c * (floor + u_i)), with floor =
    floor_share * mean(u) (any positive floor when every u is 0: equal chances) and c
    solved so that the chances add up to fraction * len(sizes), the expected sample size.
    Responses capped at 1 are set aside and c solved again on the others until none more
    is capped."""
    if not 0 < fraction <= 1:
        raise ValueError("fraction must be in (0, 1]")
    if floor_share <= 0:
        raise ValueError("the floor must be positive")
    if any(not math.isfinite(u) or u < 0 for u in sizes.values()):
        raise ValueError("uncertainties must be finite and at least 0")
    if not sizes:
        return {}
    mean = sum(sizes.values()) / len(sizes)
    floor = floor_share * mean if mean > 0 else 1.0
    measure = {pk: floor + u for pk, u in sizes.items()}
    target = fraction * len(sizes)
    capped: set[int] = set()
    while True:
        free = sum(m for pk, m in measure.items() if pk not in capped)
        scale = (target - len(capped)) / free
        # A hair's tolerance: rounding must not leave a sure draw at 0.9999999999999999.
        newly = {pk for pk, m in measure.items() if pk not in capped and scale * m >= 1 - 1e-12}
        if not newly:
            break
        capped |= newly
        if len(capped) == len(measure):
            break
    return {pk: 1.0 if pk in capped else scale * m for pk, m in measure.items()}


def poisson_sample(
    probabilities: dict[int, float], *, seed: int, exclude: set[int] | None = None
) -> list[int]:
    """Poisson sampling: each response drawn on its own with its probability, from one
    seeded stream over the sorted ids, so the same chances and seed give the same draw.
    The sample's size varies around the sum of the chances."""
    exclude = exclude or set()
    rng = random.Random(f"poisson:{seed}")
    chosen = []
    for pk in sorted(probabilities):
        draw = rng.random()
        if pk not in exclude and draw < probabilities[pk]:
            chosen.append(pk)
    return chosen
