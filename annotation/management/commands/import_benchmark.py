from django.core.management.base import BaseCommand

from annotation.importing.questions import DIFFICULTIES
from annotation.management.commands._importing import run_import
from annotation.services.benchmark_import import benchmark_import
from annotation.services.healthbench_import import healthbench_import

FORMATS = {"heartbench": benchmark_import, "healthbench": healthbench_import}


class Command(BaseCommand):
    help = (
        "Import a benchmark question file (HeartBench JSON Lines format, or HealthBench's "
        "with --format healthbench)."
    )

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
        parser.add_argument(
            "--format",
            choices=sorted(FORMATS),
            default="heartbench",
            help="the file's format: HeartBench questions (the default) or HealthBench examples "
            "(prompt_id, prompt, rubrics, example_tags, ideal_completions_data)",
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
        format: str = "heartbench",
        **options,
    ) -> None:
        summary = run_import(
            self,
            path,
            json,
            lambda chunks: FORMATS[format](
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
