import json
import sys

from django.core.management.base import BaseCommand, CommandError, no_translations

from core.tables import csv_lines
from leaderboard.evidence.selectors.pick import evidence_header
from leaderboard.exports.files import CSV_RAW, CSV_SAFE
from leaderboard.management.cli import add_evidence_arguments, evidence_from
from leaderboard.report.agreement import GateRule


class Command(BaseCommand):
    help = "Agreement of an LLM judge run with the human majority of a review round."

    def add_arguments(self, parser) -> None:
        add_evidence_arguments(parser)
        parser.add_argument("--threshold", type=float, default=None)
        parser.add_argument("--rule", choices=[r.value for r in GateRule], default=None)
        parser.add_argument("--resamples", type=int, default=1000)
        parser.add_argument(
            "--min-raters",
            type=int,
            default=None,
            help="leave out units with fewer votes than this (default: the round's raters "
            "per item; 1 keeps every unit with a majority)",
        )
        parser.add_argument(
            "--format",
            choices=["json", CSV_SAFE, CSV_RAW],
            default="json",
            help="csv is safe to open in a spreadsheet (text that would run as a formula "
            "gets a leading apostrophe); csv-raw keeps every name as it is",
        )
        parser.add_argument("--json", action="store_true", help="print JSON (the default)")

    @no_translations
    def handle(self, *args, **opts) -> None:
        if opts["threshold"] is not None and not 0 < opts["threshold"] <= 1:
            raise CommandError("--threshold must be in (0, 1]")
        if opts["min_raters"] is not None and not 1 <= opts["min_raters"] <= 50:
            raise CommandError("--min-raters must be a whole number from 1 to 50")
        if opts["json"] and opts["format"] != "json":
            raise CommandError(f"--json prints JSON; it cannot go with --format {opts['format']}")
        evidence = evidence_from(
            opts,
            threshold=opts["threshold"],
            rule=opts["rule"],
            resamples=opts["resamples"],
            min_raters=opts["min_raters"],
        )
        if evidence.report is None:
            raise CommandError(evidence.problem)
        report = evidence.report
        if opts["format"] == "json":
            data = {**evidence_header(evidence), **report.as_json()}
            self.stdout.write(json.dumps(data, ensure_ascii=False))
            return
        header = ["breakdown", "group", "units", "percent_agreement", "wilson_low", "wilson_high"]
        rows = [
            [
                "overall",
                "",
                report.units,
                report.percent_agreement,
                *(report.wilson_95 or ["", ""]),
            ]
        ]
        for breakdown, groups in report.breakdowns.items():
            for group, row in groups.items():
                rows.append(
                    [
                        breakdown[3:],
                        group,
                        row["units"],
                        row["percent_agreement"],
                        *(row["wilson_95"] or ["", ""]),
                    ]
                )
        for line in csv_lines(header, rows, safe=opts["format"] == CSV_SAFE):
            self.stdout.write(line.decode("utf-8"), ending="")
        sys.stdout.flush()
