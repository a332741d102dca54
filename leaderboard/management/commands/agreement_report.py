import csv
import json
import sys

from django.core.management.base import BaseCommand, CommandError

from annotation.models import ReviewRound
from judging.models import JudgeRun
from leaderboard.agreement import GateRule, agreement_report
from leaderboard.exports.files import CSV_RAW, CSV_SAFE
from leaderboard.exports.values import spreadsheet_cells
from leaderboard.selectors.agreement import agreement_units


class Command(BaseCommand):
    help = "Agreement of an LLM judge run with the human majority of a review round."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--round", required=True, dest="round_name")
        parser.add_argument("--judge-run", required=True, help="a run id, or 'latest'")
        parser.add_argument("--threshold", type=float, default=0.75)
        parser.add_argument("--rule", choices=[r.value for r in GateRule], default="point")
        parser.add_argument("--resamples", type=int, default=1000)
        parser.add_argument(
            "--format",
            choices=["json", CSV_SAFE, CSV_RAW],
            default="json",
            help="csv is safe to open in a spreadsheet (text that would run as a formula "
            "gets a leading apostrophe); csv-raw keeps every name as it is",
        )

    def handle(self, *args, **opts) -> None:
        round_ = ReviewRound.objects.filter(
            name=opts["round_name"], benchmark__slug=opts["benchmark"]
        ).first()
        if round_ is None:
            raise CommandError(
                f"no review round {opts['round_name']!r} in benchmark {opts['benchmark']!r}"
            )
        runs = JudgeRun.objects.filter(benchmark=round_.benchmark, kind=JudgeRun.Kind.JUDGE)
        if opts["judge_run"] == "latest":
            run = runs.filter(status=JudgeRun.Status.FINISHED).order_by("-created", "-pk").first()
            if run is None:
                raise CommandError(f"benchmark {opts['benchmark']!r} has no finished judge run")
        elif opts["judge_run"].isdigit():
            run = runs.filter(pk=int(opts["judge_run"])).first()
            if run is None:
                raise CommandError(f"no judge run {opts['judge_run']} for this benchmark")
        else:
            raise CommandError("--judge-run must be a run id or 'latest'")
        if not 0 < opts["threshold"] <= 1:
            raise CommandError("--threshold must be in (0, 1]")
        report = agreement_report(
            agreement_units(round_=round_, run=run),
            threshold=opts["threshold"],
            rule=GateRule(opts["rule"]),
            resamples=opts["resamples"],
        )
        report = {
            "benchmark": opts["benchmark"],
            "round": round_.name,
            "judge_run": run.pk,
            **report,
        }
        if opts["format"] == "json":
            self.stdout.write(json.dumps(report, ensure_ascii=False))
            return
        plain = csv.writer(self.stdout)
        writer = plain if opts["format"] == CSV_RAW else _SafeWriter(plain)
        writer.writerow(
            ["breakdown", "group", "units", "percent_agreement", "wilson_low", "wilson_high"]
        )
        writer.writerow(
            [
                "overall",
                "",
                report["units"],
                report["percent_agreement"],
                *(report["wilson_95"] or ["", ""]),
            ]
        )
        for breakdown in ("by_ability", "by_category", "by_difficulty", "by_scenario", "by_system"):
            for group, row in report[breakdown].items():
                writer.writerow(
                    [
                        breakdown[3:],
                        group,
                        row["units"],
                        row["percent_agreement"],
                        *(row["wilson_95"] or ["", ""]),
                    ]
                )
        sys.stdout.flush()


class _SafeWriter:
    def __init__(self, writer) -> None:
        self.writer = writer

    def writerow(self, row: list) -> None:
        self.writer.writerow(spreadsheet_cells(row))
