"""What the leaderboard's commands share: naming a benchmark, choosing the evidence (round,
run or judge) as every reading does, and printing a table. Commands import these from here,
never from one another."""

import json
import unicodedata

from django.core.management.base import CommandError

from annotation.models import Benchmark
from leaderboard.evidence.selectors.pick import EvidenceNotFound, agreement_evidence


def add_json_argument(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")


def write_result(command, *, as_json: bool, summary: dict, text: str) -> None:
    """The command's result: `text` for people, or `summary` as one JSON object."""
    command.stdout.write(json.dumps(summary, ensure_ascii=False) if as_json else text)


def add_evidence_arguments(parser) -> None:
    """--benchmark, --round, --judge-run and --judge: the evidence of an agreement report."""
    parser.add_argument("--benchmark", required=True)
    parser.add_argument("--round", required=True, dest="round_name")
    parser.add_argument(
        "--judge-run",
        default="latest",
        help="a run id, or 'latest': the newest finished run covering the round",
    )
    add_judge_argument(parser)


def add_judge_argument(parser) -> None:
    parser.add_argument(
        "--judge",
        default="",
        help="a judge's name: the newest verdicts of its current version's finished runs "
        "(instead of --judge-run)",
    )


def benchmark_named(slug: str) -> Benchmark:
    """The benchmark with this slug; a CommandError names the slug when there is none."""
    benchmark = Benchmark.objects.filter(slug=slug).first()
    if benchmark is None:
        raise CommandError(f"no benchmark with slug {slug!r}")
    return benchmark


def evidence_from(opts, **overrides):
    """The evidence the options name (the same selector as the page and the API); a
    CommandError says what is missing."""
    benchmark = benchmark_named(opts["benchmark"])
    try:
        evidence = agreement_evidence(
            benchmark=benchmark,
            round_ref=opts["round_name"],
            run_ref=opts["judge_run"],
            judge=opts["judge"],
            **overrides,
        )
    except EvidenceNotFound as exc:
        raise CommandError(str(exc)) from exc
    return evidence


MISSING = "-"


def _width(text: str) -> int:
    # Chinese ability labels take two terminal columns each; pad by display width.
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, *, right: bool) -> str:
    gap = " " * (width - _width(text))
    return gap + text if right else text + gap


def _is_number(cell: str) -> bool:
    if cell == MISSING:
        return True
    try:
        float(cell.rstrip("%"))
    except ValueError:
        return False
    return True


def render_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Left-aligned first column(s) of text, right-aligned numbers, two spaces apart."""
    widths = [max(_width(cell) for cell in column) for column in zip(headers, *rows, strict=True)]
    numeric = [all(_is_number(cell) for cell in column) for column in zip(*rows, strict=True)]
    out = []
    for cells in [headers, *rows]:
        padded = [
            _pad(cell, width, right=is_number)
            for cell, width, is_number in zip(cells, widths, numeric, strict=True)
        ]
        out.append("  ".join(padded).rstrip())
    return out
