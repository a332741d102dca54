from django.core.management.base import BaseCommand

from annotation.importing.questions import DIFFICULTIES
from annotation.management.commands._importing import run_import
from annotation.services.benchmark_import import benchmark_import


class Command(BaseCommand):
    help = "Import a benchmark question file (HeartBench JSON Lines format)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path")
        parser.add_argument("--benchmark", required=True, help="benchmark slug (created if new)")
        parser.add_argument("--name", default="", help="display name for a new benchmark")
        parser.add_argument(
            "--difficulty",
            choices=DIFFICULTIES,
            help="the difficulty of every case in the file, for files without a difficulty "
            "field (HeartBench's question_normal.jsonl and question_hard.jsonl)",
        )
        parser.add_argument(
            "--change-difficulty",
            action="store_true",
            help="change the difficulty of cases that already exist with another one (every "
            "normal and hard score changes; each change is audited); without it such cases "
            "are refused",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON summary")

    def handle(
        self,
        *args,
        path: str,
        benchmark: str,
        name: str,
        difficulty,
        change_difficulty: bool,
        json: bool,
        **options,
    ) -> None:
        summary = run_import(
            self,
            path,
            json,
            lambda chunks: benchmark_import(
                chunks=chunks,
                benchmark_slug=benchmark,
                benchmark_name=name,
                difficulty=difficulty,
                change_difficulty=change_difficulty,
            ),
        )
        if not json:
            self.stdout.write(
                f"{summary['cases']} cases ({summary['cases_created']} new), "
                f"{summary['criteria']} criteria, "
                f"{summary['rubric_versions_created']} new rubric versions"
            )
            for warning in summary["warnings"]:
                self.stderr.write(f"warning: {warning}")
