"""Start-up time of the commands: `manage.py check` against a bare `django.setup()`.

Every command, page process and worker starts by loading the URL configuration (the
system checks read it). Heavy libraries (scipy.stats, statsmodels, numpy, the openai
SDK, reportlab, drf-spectacular, the Markdown parser) and the API's views are imported only
where they are used, so that start-up stays close to Django's own. Each is timed as a fresh
process, several times, and the median is printed. Goal: `manage.py check` in at most 2x
the time of a bare `django.setup()` on the same host.

    python bench/startup.py [--repeats 7]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._host import host_report  # noqa: E402

SETUP = (
    "import os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings.local'); "
    "import django; django.setup()"
)
HEAVY = (
    "scipy.stats",
    "statsmodels",
    "numpy",
    "openai",
    "reportlab",
    "drf_spectacular.views",
    "markdown_it",
)


def _seconds(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def _loaded_by_check(env: dict) -> list[str]:
    """The heavy libraries a `check` process has imported by its end."""
    probe = (
        "import os, sys; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings.local');"
        "import django; django.setup();"
        "from django.core.management import call_command; call_command('check', stdout=sys.stderr);"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, check=True, capture_output=True
    )
    return out.stdout.decode().split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    print(host_report())
    python = sys.executable
    # One of each first: the bytecode caches and the page cache are warm for every timing.
    _seconds([python, "-c", SETUP], env)
    _seconds([python, "manage.py", "check"], env)
    setup, check = [], []
    for _ in range(args.repeats):  # interleaved, so a busy moment weighs on both alike
        setup.append(_seconds([python, "-c", SETUP], env))
        check.append(_seconds([python, "manage.py", "check"], env))
    bare, full = statistics.median(setup), statistics.median(check)
    print(f"bare django.setup(): median {bare:.2f} s of {args.repeats} (min {min(setup):.2f})")
    print(f"manage.py check:     median {full:.2f} s of {args.repeats} (min {min(check):.2f})")
    ratio = full / bare
    verdict = "met" if ratio <= 2.0 else "NOT met"
    print(f"ratio: {ratio:.2f}x a bare setup (goal: at most 2x, {verdict})")
    loaded = _loaded_by_check(env)
    print("heavy libraries loaded by check: " + (", ".join(loaded) if loaded else "none"))


if __name__ == "__main__":
    main()
