"""Building tens of thousands of small tuples at once (a report's units) makes Python's
cyclic garbage collector run over and over, walking every object of the process each time;
those tuples hold no cycles, so the collector is paused while they are built."""

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
