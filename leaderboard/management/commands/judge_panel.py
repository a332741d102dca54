import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.management.cli import benchmark_named
from leaderboard.panel.selectors import PanelInputError, judge_panel, parse_epsilons
from leaderboard.report.wording_reasons import reason_text


def _number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def panel_table(payload: dict) -> list[str]:
    units = payload["units"]
    lines = [
        f"Can {payload['judge']} replace an expert? Benchmark {payload['benchmark']}, "
        f"round {payload['round']!r}, runs {', '.join(map(str, payload['judge_runs']))}",
        f"{units['compared']} of {units['round']} units compared ({units['no_judge_verdict']} "
        f"without a judge verdict, {units['fewer_than_two_votes']} with fewer than two votes), "
        f"{payload['items']} responses",
        "",
        "Alternative Annotator Test (winning rate >= 0.5 passes; BY-corrected, q = 0.05):",
    ]
    for key, test in payload["alt_test"].items():
        if test["winning_rate"] is None:
            lines.append(f"  epsilon {key}: no result ({reason_text(test['reason'])})")
        else:
            verdict = "passes" if test["passed"] else "fails"
            lines.append(
                f"  epsilon {key}: winning rate {_number(test['winning_rate'])}, {verdict}; "
                f"advantage probability {_number(test['advantage_probability'])}"
            )
        for expert in test["experts"]:
            if expert["p_value"] is None:
                lines.append(f"    {expert['expert']}: {reason_text(expert['reason'])}")
                continue
            won = {True: "judge wins", False: "judge does not win", None: "-"}
            lines.append(
                f"    {expert['expert']}: {expert['items']} items, judge advantage "
                f"{_number(expert['judge_advantage'])}, expert advantage "
                f"{_number(expert['expert_advantage'])}, p {expert['p_value']:.3g} "
                f"(adjusted {expert['p_adjusted']:.3g}): {won[expert['judge_wins']]}"
            )
    f1 = payload["f1"]

    def f1_text(entry: dict) -> str:
        if entry["value"] is None:
            return f"undefined ({reason_text(entry['reason'])})"
        return f"{entry['value']:.3f} over {entry['pairs']} pairs"

    lines += ["", "Macro F1 against the other raters (HealthBench):"]
    lines.append(f"  judge: {f1_text(f1['judge'])}")
    lines += [f"  {expert['rater']}: {f1_text(expert)}" for expert in f1["experts"]]
    return lines


class Command(BaseCommand):
    help = (
        "Can a judge replace an expert? For a review round and a judge (its current "
        "version): the Alternative Annotator Test (Calderon et al. 2025) per cost margin "
        "epsilon, and the macro F1 of the judge and of each expert against the others "
        "(HealthBench). Experts appear by pseudonym."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--round", default="", dest="round_name", help="id or name")
        parser.add_argument("--judge", required=True, help="the judge configuration's name")
        parser.add_argument(
            "--epsilon",
            action="append",
            default=[],
            help="a cost margin (repeat, or comma-separate); default 0.1, 0.15 and 0.2",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    @no_translations
    def handle(self, *args, **opts) -> None:
        benchmark = benchmark_named(opts["benchmark"])
        try:
            payload = judge_panel(
                benchmark=benchmark,
                round_ref=opts["round_name"],
                judge=opts["judge"],
                epsilons=parse_epsilons(opts["epsilon"]),
            )
        except PanelInputError as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps(payload, ensure_ascii=False))
            return
        self.stdout.write("\n".join(panel_table(payload)))
