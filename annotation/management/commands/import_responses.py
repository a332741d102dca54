from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._importing import run_import
from annotation.models import System
from annotation.services.responses_import import BenchmarkNotFound, responses_import


class Command(BaseCommand):
    help = "Import an answers file (question_id and response per line) for one system."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path")
        parser.add_argument("--benchmark", required=True, help="benchmark slug")
        parser.add_argument("--system", required=True, help="system name (created if new)")
        parser.add_argument(
            "--kind",
            choices=System.Kind.values,
            default=System.Kind.LLM,
            help="kind of a new system",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON summary")

    def handle(self, *args, path, benchmark, system, kind, json, **options) -> None:
        try:
            summary = run_import(
                self,
                path,
                json,
                lambda chunks: responses_import(
                    chunks=chunks, benchmark_slug=benchmark, system_name=system, system_kind=kind
                ),
            )
        except BenchmarkNotFound as exc:
            raise CommandError(str(exc)) from exc
        if not json:
            self.stdout.write(
                f"{summary['responses']} responses ({summary['responses_created']} new, "
                f"{summary['unchanged']} already stored)"
            )
            for warning in summary["warnings"]:
                self.stderr.write(f"warning: {warning}")
