import json
import os
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, no_translations

from annotation.models import ReviewRound
from core.tables import jsonl_lines
from leaderboard.interop.healthbench_meta import healthbench_meta_rows
from leaderboard.stats.alt_test import MIN_LABELS


def _round(ref: str) -> ReviewRound:
    ref = ref.strip()
    rounds = ReviewRound.objects.select_related("benchmark")
    found = rounds.filter(name=ref).first()
    if found is None and ref.isdigit():
        found = rounds.filter(pk=int(ref)).first()
    if found is None:
        raise CommandError(f"no review round named {ref!r}")
    return found


def _write(path: Path, lines) -> None:
    """The whole file or none: written beside its place, then moved there."""
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".part")
    except OSError as exc:
        raise CommandError(f"{path}: cannot be written ({exc.strerror})") from exc
    try:
        with os.fdopen(handle, "wb") as out:
            for line in lines:
                out.write(line)
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise CommandError(f"{path}: cannot be written ({exc.strerror})") from exc


class Command(BaseCommand):
    help = (
        "Export a review round's expert votes in HealthBench's meta-evaluation format (one "
        "JSON line per response and criterion: prompt, completion, rubric, category, "
        "binary_labels, anonymized_physician_ids), which simple-evals' "
        "healthbench_meta_eval.py reads."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("round", help="the review round's name (or id)")
        parser.add_argument("--output", required=True, help="the JSONL file to write")
        parser.add_argument(
            "--min-votes",
            type=int,
            default=MIN_LABELS,
            help=f"leave out criteria with fewer experts' votes (default {MIN_LABELS}: the "
            "meta-eval compares experts in pairs)",
        )
        parser.add_argument("--json", action="store_true", help="print the summary as JSON")

    @no_translations
    def handle(self, *args, round: str, output: str, min_votes: int, json: bool, **opts) -> None:
        if min_votes < 1:
            raise CommandError("--min-votes must be at least 1")
        round_ = _round(round)
        export = healthbench_meta_rows(round_=round_, min_votes=min_votes)
        if not export.rows:
            raise CommandError(
                f"round {round_.name!r} has no criterion with {min_votes} or more experts' "
                "current votes; nothing written"
            )
        path = Path(output)
        _write(path, jsonl_lines(export.rows))
        summary = {
            "benchmark": round_.benchmark.slug,
            "round": round_.name,
            "output": str(path),
            **export.summary(),
        }
        if json:
            self.stdout.write(_dumps(summary))
            return
        self.stdout.write(
            f"{summary['rows']} lines ({summary['votes']} votes of {summary['experts']} experts) "
            f"written to {path}; {summary['units_with_fewer_votes']} of {summary['units']} "
            f"criteria left out with fewer than {min_votes} votes"
        )


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
