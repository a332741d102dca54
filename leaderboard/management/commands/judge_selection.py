import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.management.cli import benchmark_named
from leaderboard.management.commands._held_out import held_out_lines
from leaderboard.report.wording_reasons import reason_text
from leaderboard.selection.selectors.versions import (
    SelectionInvalid,
    judge_selection,
    selection_round,
)
from leaderboard.stats.bootstrap import DEFAULT_RESAMPLES


def _shown(stat: dict, form: str) -> str:
    if stat["value"] is None:
        return f"undefined ({reason_text(stat['reason'])})"
    return form.format(stat["value"])


class Command(BaseCommand):
    help = (
        "Every judge version whose finished runs cover a review round, best first: agreement "
        "with the experts' majority (Wilson 95% interval), Cohen's kappa, the paired "
        "difference to the best (McNemar's exact test, cluster bootstrap), cost per 1,000 "
        "responses, median latency per call, the gate; and the cheapest passing version."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--round", required=True, dest="round_name", help="name or id")
        parser.add_argument("--benchmark", default="", help="needed if several have the round")
        parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    @no_translations
    def handle(self, *args, **opts) -> None:
        if opts["resamples"] < 1:
            raise CommandError("--resamples must be at least 1")
        benchmark = benchmark_named(opts["benchmark"]) if opts["benchmark"] else None
        try:
            round_ = selection_round(ref=opts["round_name"], benchmark=benchmark)
        except SelectionInvalid as exc:
            raise CommandError(str(exc)) from exc
        result = judge_selection(round_=round_, resamples=opts["resamples"])
        if opts["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
            return
        self.stdout.write("\n".join(self.table(result)))

    def table(self, result: dict) -> list[str]:
        policy = result["gate_policy"]
        lines = [
            f"round {result['round']!r} of {result['benchmark']} ({result['items']} responses), "
            f"gate: {policy['rule_name']} >= {policy['threshold']:.2f}"
        ]
        for row in result["judges"]:
            wilson = row["wilson_95"]
            interval = (
                "" if wilson["low"] is None else f" [{wilson['low']:.1%}, {wilson['high']:.1%}]"
            )
            paired = row["versus_best"]
            if paired is None:
                versus = "the best"
            else:
                bounds = paired["difference_95"]
                versus = (
                    _shown(paired["difference"], "{:+.1%}")
                    + (
                        ""
                        if bounds["low"] is None
                        else f" [{bounds['low']:+.1%}, {bounds['high']:+.1%}]"
                    )
                    + " vs best, McNemar p "
                    + _shown(paired["mcnemar_p"], "{:.3g}")
                )
            lines += [
                f"{row['label']} (runs {', '.join(f'#{pk}' for pk in row['runs'])}): "
                f"{'passes' if row['gate']['passed'] else 'does not pass'} the gate",
                f"  agreement {_shown(row['agreement'], '{:.1%}')}{interval} on {row['units']} "
                f"units, kappa {_shown(row['cohens_kappa'], '{:.3f}')}, {versus}",
                f"  cost per 1,000 responses {_shown(row['cost_per_1000'], '{:.4f}')}, "
                f"median latency {_shown(row['median_latency_ms'], '{:.0f} ms')}",
            ]
        chosen = result["cheapest_passing"]
        if chosen["label"]:
            lines.append(f"cheapest passing: {chosen['label']}")
        else:
            why = reason_text(chosen["reason"])
            lines.append(f"cheapest passing: none ({why})")
        if result["passing_without_cost"]:
            lines.append("also passing, cost unknown: " + ", ".join(result["passing_without_cost"]))
        return lines + held_out_lines(result["calibration_to_held_out"])
