import gc
import importlib
import sys

import pytest

from config.gc_pause import gc_paused


def test_the_collector_is_paused_inside_and_restored_after_even_on_error():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), gc_paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_already_off_stays_off():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_wsgi_module_loads_the_views_and_freezes_what_it_made():
    gc.unfreeze()
    try:
        importlib.reload(importlib.import_module("config.wsgi"))
        assert gc.get_freeze_count() > 10_000
        assert "annotation.views.review_expert" in sys.modules
    finally:
        gc.unfreeze()
