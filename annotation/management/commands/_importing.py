"""Shared plumbing of the import commands: open the file, print the summary or the errors."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.importing.issues import ImportRejected


def open_input(path: str):
    file = Path(path)
    if not file.is_file():
        raise CommandError(f"{path}: no such file")
    try:
        return file.open("rb")
    except OSError as exc:
        raise CommandError(f"{path}: cannot be read ({exc.strerror})") from exc


def run_import(command: BaseCommand, path: str, as_json: bool, run) -> dict:
    """Call `run(chunks)`; turn a rejected file into a CommandError naming its problems."""
    with open_input(path) as chunks:
        try:
            summary = run(chunks).as_dict()
        except ImportRejected as exc:
            if as_json:
                command.stdout.write(
                    json.dumps(
                        {
                            "error": "rejected",
                            "errors": [str(issue) for issue in exc.errors],
                            "total": exc.total,
                        },
                        ensure_ascii=False,
                    )
                )
            raise CommandError(f"{path}: nothing was imported.\n{exc.summary()}") from exc
    if as_json:
        command.stdout.write(json.dumps(summary, ensure_ascii=False))
    return summary
