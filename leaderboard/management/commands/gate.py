import json

from django.core.management.base import BaseCommand, CommandError, no_translations

from leaderboard.evidence.selectors.pick import evidence_header
from leaderboard.gate.services.evaluation import EvaluationRefused, gate_evaluate
from leaderboard.gate.wording import gate_refusal_text
from leaderboard.management.cli import add_evidence_arguments, evidence_from


class Command(BaseCommand):
    help = (
        "The gate's decision for a judge run against a review round, under the benchmark's "
        "policy; with --record, keep it as a gate evaluation (as the page's button does)."
    )

    def add_arguments(self, parser) -> None:
        add_evidence_arguments(parser)
        parser.add_argument("--record", action="store_true", help="record the evaluation")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    @no_translations
    def handle(self, *args, **opts) -> None:
        evidence = evidence_from(opts)
        if evidence.report is None:
            raise CommandError(evidence.problem)
        report = evidence.report
        gate = report.gate
        result = {
            **evidence_header(evidence),
            "passed": gate["passed"],
            "rule": gate["rule_name"],
            "threshold": gate["threshold"],
            "agreement": report.percent_agreement,
            "wilson_95": report.wilson_95,
            "units": report.units,
            "refusal": gate.get("refusal"),
            "refusal_text": gate_refusal_text(gate),
            "history": [
                {key: value for key, value in r.items() if key != "per_item"}
                for r in gate.get("rounds", [])
            ],
            "pooled": gate.get("pooled"),
            "recorded": None,
        }
        if opts["record"]:
            try:
                evaluation = gate_evaluate(evidence=evidence)
            except EvaluationRefused as exc:
                code = f" ({exc.code})" if exc.code else ""
                raise CommandError(f"refused{code}: {exc}") from exc
            result["recorded"] = evaluation.pk
        if opts["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
            return
        agreement = result["agreement"]
        self.stdout.write(
            f"{'passed' if result['passed'] else 'NOT passed'}: agreement "
            f"{'-' if agreement is None else f'{100 * agreement:.1f}%'} on {result['units']} "
            f"units, rule {result['rule']} >= {result['threshold']}"
            + (f"; recorded as evaluation {result['recorded']}" if result["recorded"] else "")
        )
