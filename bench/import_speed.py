"""Import speed and memory of the benchmark importer.

Generates a synthetic benchmark at full HeartBench scale (1,126 cases, about 12,000
criteria) and a large file of about 50 MB, imports each into a fresh database, and prints
the time and the peak Python memory of the import. Goal: the full-scale import under 5 s
on SQLite; peak memory far below the file size (lines are streamed).

    python bench/import_speed.py                 # SQLite in a temporary folder
    DATABASE_URL=postgres://... python bench/import_speed.py
"""

import argparse
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1126)
    parser.add_argument("--criteria", type=int, default=12000)
    parser.add_argument("--large-cases", type=int, default=30000, help="cases in the ~50 MB file")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="concord-bench-"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    os.environ["CONCORD_VAR_DIR"] = str(workdir)
    os.environ["DEBUG"] = "false"  # DEBUG keeps every SQL statement in memory
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from annotation.services.benchmark_import import benchmark_import
    from bench.synthetic_benchmark import write_questions

    if connection.vendor == "postgresql":
        from django.test.utils import setup_databases

        setup_databases(verbosity=0, interactive=False)
    else:
        call_command("migrate", verbosity=0)
    print(f"database: {connection.vendor}")

    runs = [
        ("full scale", args.cases, args.criteria),
        ("large file", args.large_cases, args.large_cases * 11),
    ]
    for label, cases, criteria in runs:
        path = workdir / f"{label.replace(' ', '-')}.jsonl"
        write_questions(path, cases=cases, criteria=criteria)
        size_mb = path.stat().st_size / 1e6
        slug = label.replace(" ", "-")
        started = time.perf_counter()
        with path.open("rb") as chunks:
            summary = benchmark_import(chunks=chunks, benchmark_slug=slug)
        seconds = time.perf_counter() - started
        # Memory is traced in a second import into another benchmark: tracing slows Python
        # down too much to time the same run.
        tracemalloc.start()
        with path.open("rb") as chunks:
            benchmark_import(chunks=chunks, benchmark_slug=slug + "-traced")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"{label}: {summary.cases} cases, {summary.criteria} criteria, "
            f"file {size_mb:.1f} MB: import {seconds:.2f} s "
            f"({summary.criteria / seconds:,.0f} criteria/s), "
            f"peak Python memory {peak / 1e6:.1f} MB"
        )
        started = time.perf_counter()
        with path.open("rb") as chunks:
            again = benchmark_import(chunks=chunks, benchmark_slug=slug)
        print(
            f"{label}, second import of the same file: {again.rubric_versions_created} new "
            f"versions in {time.perf_counter() - started:.2f} s"
        )


if __name__ == "__main__":
    main()
