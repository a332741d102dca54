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


def add_votes_arguments(parser) -> None:
    """The arguments every votes import takes: the file, the round and its benchmark."""
    parser.add_argument("path")
    parser.add_argument(
        "--round", dest="round_name", required=True, help="round name (created if new)"
    )
    parser.add_argument(
        "--benchmark",
        default=None,
        help="benchmark slug of a new round (default: the one holding the question_ids)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON summary")


def votes_summary_write(command: BaseCommand, summary: dict) -> None:
    """A votes import's summary, in words."""
    created = "created" if summary["created_round"] else "existing"
    command.stdout.write(
        f"round {summary['round']!r} ({created}): {summary['items']} items, "
        f"{summary['assignments']} submissions, {summary['votes']} votes"
    )
    if summary["raters_created"]:
        command.stdout.write(
            f"new expert accounts (no password yet): {', '.join(summary['raters_created'])}"
        )
    for warning in summary["warnings"]:
        command.stderr.write(f"warning: {warning}")
