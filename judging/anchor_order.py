"""Where a run's added anchor tasks go among its own (pure, no Django).

The lanes take a run's tasks in the order they were written. Anchors appended at the end,
or in their set's order, would come to the judge as a block of their own, at the same
moment of every run; drawn into random places instead, from a seed the run keeps, they are
spread through the run like any other response and the order can be reproduced.
"""

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def anchor_places(*, own: int, added: int, seed: int) -> list[int]:
    """The places (0-based, ascending) of `added` anchor tasks among `own + added` tasks."""
    if own < 0 or added < 0:
        raise ValueError("task counts are not negative")
    return sorted(random.Random(seed).sample(range(own + added), added))


def interleave(own: Sequence[T], added: Sequence[T], *, seed: int) -> list[tuple[T, bool]]:
    """Every task of `own`, in its order, and every one of `added`, in an order shuffled by
    `seed`, at the places `anchor_places` draws from it; each with whether it is the run's
    own (True) or an added anchor (False)."""
    rng = random.Random(seed)
    # The same first draw as `anchor_places`: its places are these.
    places = set(rng.sample(range(len(own) + len(added)), len(added)))
    shuffled = list(added)
    rng.shuffle(shuffled)
    mine, extra = iter(own), iter(shuffled)
    return [
        (next(extra), False) if place in places else (next(mine), True)
        for place in range(len(own) + len(added))
    ]
