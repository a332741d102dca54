import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.management.cli import benchmark_named
from leaderboard.report.wording_reasons import reason_text
from leaderboard.rubric_health.selectors.health import (
    JudgeNotFound,
    rubric_health,
    rubric_health_json,
)
from leaderboard.stats.criterion_health import THRESHOLDS


def _percent(stat: dict) -> str:
    if stat["value"] is None:
        return f"undefined ({reason_text(stat['reason'])})"
    return f"{100 * stat['value']:.0f}%"


def _interval(interval: dict) -> str:
    if interval["low"] is None:
        return ""
    return f" [{100 * interval['low']:.0f}-{100 * interval['high']:.0f}%]"


def _measures(row: dict) -> str:
    return (
        f"unanimity {_percent(row['expert_unanimity']):>9} of {row['rated_units']:>4}  "
        f"judge disagrees {_percent(row['judge_disagreement']):>9}"
        f"{_interval(row['judge_disagreement_95']):<11} of {row['judged_units']:>4}  "
        f"discrimination {_percent(row['discrimination']):>9} over {row['systems']} systems"
        + (f"  saturated ({row['saturation']})" if row["saturation"] else "")
    )


class Command(BaseCommand):
    help = (
        "Rubric health: per criterion and per ability, the experts' unanimity, the judge's "
        "disagreement with their majority (Wilson 95% interval) and how far the judged hit "
        "rate separates systems, from every review round and judge run; criteria past the "
        "thresholds are flagged for revision."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--benchmark", required=True)
        parser.add_argument(
            "--all-versions",
            action="store_true",
            help="every rubric version's criteria, not only each case's newest",
        )
        parser.add_argument(
            "--all", action="store_true", dest="every_criterion", help="list unflagged too"
        )
        parser.add_argument(
            "--judge",
            default="",
            help="the judge whose verdicts are read (its current version); default: the "
            "published judge, else the gate-evaluated one, else the judge that ran last",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    @no_translations
    def handle(self, *args, **opts) -> None:
        benchmark = benchmark_named(opts["benchmark"])
        try:
            report = rubric_health(
                benchmark=benchmark, latest_only=not opts["all_versions"], judge=opts["judge"]
            )
        except JudgeNotFound as exc:
            raise CommandError(str(exc)) from exc
        result = rubric_health_json(report)
        if opts["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
            return
        self.stdout.write("\n".join(self.table(result, every=opts["every_criterion"])))

    def table(self, result: dict, *, every: bool) -> list[str]:
        lines = [
            f"Rubric health of {result['benchmark']} ({result['versions']} rubric versions), "
            f"judge {(result['judge'] or {}).get('name', 'none')}: "
            f"{result['flagged']} of {len(result['criteria'])} criteria flagged",
            "thresholds: " + ", ".join(f"{name} {value:g}" for name, value in THRESHOLDS.items()),
            "per ability:",
        ]
        width = max((len(row["ability"]) for row in result["abilities"]), default=0)
        for row in result["abilities"]:
            flags = ", ".join(row["flags"])
            lines.append(
                f"  {row['ability'].ljust(width)}  {row['criteria']:>5} criteria  "
                f"{_measures(row)}" + (f"  FLAGGED: {flags}" if flags else "")
            )
        overall = result["overall"]
        lines.append(f"  {'all criteria'.ljust(width)}  {overall['criteria']:>5} criteria  "
                     f"{_measures(overall)}")  # fmt: skip
        lines.append("per criterion:" if every else "flagged criteria:")
        shown = [row for row in result["criteria"] if every or row["flags"]]
        for row in shown:
            flags = ", ".join(row["flags"]) or "-"
            lines.append(
                f"  {row['case']} v{row['version']} #{row['position']} ({row['ability']}): "
                f"{flags}\n    {_measures(row)}\n    {row['text'][:80]}"
            )
        if not shown:
            lines.append("  none")
        return lines
