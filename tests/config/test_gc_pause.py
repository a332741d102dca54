import gc
import subprocess
import sys
from pathlib import Path

import pytest

from config.gc_pause import gc_paused

ROOT = Path(__file__).resolve().parents[2]


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


def _fresh_interpreter(code: str) -> list[str]:
    report = "; print(gc.get_freeze_count(), 'annotation.views.review_expert' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", "import gc, sys" + code + report],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout.split()


def test_the_wsgi_module_loads_the_views_and_freezes_what_it_made():
    # Fresh interpreters: in this one the views are long imported.
    assert _fresh_interpreter("") == ["0", "False"]
    frozen, views = _fresh_interpreter("; import config.wsgi")
    assert int(frozen) > 10_000 and views == "True"


def test_the_wsgi_module_compiles_every_template_before_the_first_request():
    code = (
        "; import config.wsgi; from django.template import engines"
        "; loader = engines['django'].engine.template_loaders[0]"
        "; print(len(loader.get_template_cache)"
        " >= len(list(__import__('pathlib').Path('templates').rglob('*.html'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import gc, sys" + code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert done.stdout.split()[-1] == "True"


def test_a_template_that_does_not_compile_is_logged_and_the_others_still_are(
    tmp_path, settings, caplog
):
    from config.template_warmup import templates_compile

    (tmp_path / "fine.html").write_text("<p>{{ x }}</p>")
    (tmp_path / "broken.html").write_text("{% if %}")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path]}]
    assert templates_compile() == 1
    assert "broken.html does not compile" in caplog.text
