import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.management.cli import benchmark_named
from leaderboard.selection.selectors.compare import CompareInvalid, runs_compare
from leaderboard.stats.bootstrap import DEFAULT_RESAMPLES


def _percent(stat: dict) -> str:
    return "undefined" if stat["value"] is None else f"{100 * stat['value']:.1f}%"


def _number(stat: dict, digits: int = 3) -> str:
    return "undefined" if stat["value"] is None else f"{stat['value']:.{digits}f}"


def _p(stat: dict) -> str:
    if stat["value"] is None:
        return "undefined"
    return "< 0.001" if stat["value"] < 0.001 else f"{stat['value']:.3f}"


class Command(BaseCommand):
    help = (
        "Compare two judge runs on the units both judged: their agreement with each other "
        "(overall and per ability, with Cohen's kappa and McNemar's exact test) and, with "
        "--round, each run's agreement with the round's expert majority and the difference."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--benchmark", required=True)
        parser.add_argument(
            "--run", action="append", type=int, default=[], dest="runs", help="(twice)"
        )
        parser.add_argument("--round", default="", dest="round_name")
        parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    @no_translations
    def handle(self, *args, **opts) -> None:
        benchmark = benchmark_named(opts["benchmark"])
        if opts["resamples"] < 1:
            raise CommandError("--resamples must be at least 1")
        try:
            result = runs_compare(
                benchmark=benchmark,
                run_ids=opts["runs"],
                round_name=opts["round_name"],
                resamples=opts["resamples"],
            )
        except CompareInvalid as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
            return
        self.stdout.write("\n".join(self.table(result)))

    def table(self, result: dict) -> list[str]:
        first, second = (
            f"#{run['id']} ({run['judge_version']['config']} v{run['judge_version']['number']})"
            for run in result["runs"]
        )
        shared = result["shared"]
        lines = [
            f"{first} against {second}: {shared['units']} shared units "
            f"({result['only_in_first']} only in the first, {result['only_in_second']} only "
            "in the second)",
            f"  agreement {_percent(shared['agreement'])}, Cohen's kappa "
            f"{_number(shared['cohens_kappa'])}, McNemar exact p {_p(shared['mcnemar_p'])} "
            f"({shared['first_hit_second_miss']} hit by the first only, "
            f"{shared['first_miss_second_hit']} by the second only)",
            "  per ability:",
        ]
        width = max((len(label) for label in result["by_ability"]), default=0)
        for label, row in result["by_ability"].items():
            lines.append(
                f"    {label.ljust(width)}  {row['units']:>6} units  "
                f"{_percent(row['agreement']):>9}  kappa {_number(row['cohens_kappa'])}  "
                f"p {_p(row['mcnemar_p'])}"
            )
        if "round" in result:
            found = result["round"]
            interval = found["difference_95"]
            bounds = (
                "undefined"
                if interval["low"] is None
                else f"{100 * interval['low']:+.1f} to {100 * interval['high']:+.1f} points"
            )
            difference = found["difference"]
            points = (
                "undefined" if difference["value"] is None else f"{100 * difference['value']:+.1f}"
            )
            lines += [
                f"against the experts' majority in round {found['name']!r} "
                f"({found['units']} units both judged):",
                f"  first {_percent(found['first_agreement'])}, second "
                f"{_percent(found['second_agreement'])}, difference {points} points "
                f"(95% cluster bootstrap over cases: {bounds})",
            ]
        return lines
