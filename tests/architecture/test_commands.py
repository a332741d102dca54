"""The command line is consistent: every command that prints a result can print it as JSON
(`--json`), `--format` names a file format and nothing else, and no command imports
another command's module (test_import_direction)."""

import argparse
from pathlib import Path

from django.core.management import load_command_class

ROOT = Path(__file__).resolve().parents[2]
APPS = ("annotation", "judging", "leaderboard")
# Benchmarks' own file formats count: they say how the file being read is laid out.
FILE_FORMATS = {"json", "jsonl", "csv", "csv-raw", "md", "tex", "pdf", "parquet"}
FILE_FORMATS |= {"heartbench", "healthbench"}


def _commands() -> list[tuple[str, str]]:
    return [
        (app, path.stem)
        for app in APPS
        for path in sorted((ROOT / app / "management" / "commands").glob("*.py"))
        if not path.stem.startswith("_")
    ]


def _parsers(app: str, name: str) -> list[argparse.ArgumentParser]:
    """The command's parser, or its subcommands' parsers (`runs list`, `runs show`)."""
    parser = load_command_class(app, name).create_parser("manage.py", name)
    # argparse keeps no public list of its actions.
    subcommands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [p for a in subcommands for p in a.choices.values()] or [parser]


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {option: action for action in parser._actions for option in action.option_strings}


def test_every_command_prints_json_when_asked():
    missing = [
        f"{app}: {parser.prog}"
        for app, name in _commands()
        for parser in _parsers(app, name)
        if "--json" not in _options(parser)
    ]
    assert not missing, "no --json: " + ", ".join(missing)


def test_format_names_file_formats_only():
    found = []
    for app, name in _commands():
        for parser in _parsers(app, name):
            action = _options(parser).get("--format")
            if action is not None and not set(action.choices or ()) <= FILE_FORMATS:
                found.append(f"{parser.prog}: {sorted(set(action.choices or ()) - FILE_FORMATS)}")
    assert not found, "--format is for file formats: " + ", ".join(found)
