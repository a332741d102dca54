from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.models import ReviewRound
from judging.models import JudgeRun
from leaderboard.boards.selectors.runs import BoardNotFound, board_runs
from leaderboard.interop.dataset_card import dataset_card
from leaderboard.interop.dataset_export import dataset_tables, write_table
from leaderboard.management.cli import add_json_argument, benchmark_named, write_result


class Command(BaseCommand):
    help = (
        "Write a benchmark as a Hugging Face dataset: Parquet tables (responses, criteria, "
        "the round's votes under rater pseudonyms, the judge run's verdicts, the corrected "
        "board) and a dataset card, README.md. Loads with "
        'datasets.load_dataset("parquet", data_dir=OUT).'
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("out", help="a directory (created if missing)")
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--round", default="", dest="round_name")
        parser.add_argument(
            "--judge-run",
            default="latest",
            help="a run id, 'latest' (the newest run of the benchmark's default judge) or 'none'",
        )
        parser.add_argument(
            "--license", default="other", help="the licence id for the card, e.g. cc-by-4.0"
        )
        parser.add_argument("--citation", default="", help="a file with the BibTeX to cite")
        add_json_argument(parser)

    def handle(self, *args, **opts) -> None:
        benchmark = benchmark_named(opts["benchmark"])
        round_ = None
        if opts["round_name"]:
            round_ = ReviewRound.objects.filter(
                benchmark=benchmark, name=opts["round_name"]
            ).first()
            if round_ is None:
                raise CommandError(
                    f"benchmark {benchmark.slug!r} has no review round {opts['round_name']!r}"
                )
        run = self.run(benchmark, opts["judge_run"])
        citation = ""
        if opts["citation"]:
            try:
                citation = Path(opts["citation"]).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise CommandError(f"{opts['citation']}: cannot be read ({exc})") from exc
        out = Path(opts["out"])
        tables = dataset_tables(benchmark=benchmark, round_=round_, run=run)
        try:
            for table in tables:
                write_table(table, out)
            card = dataset_card(
                benchmark=benchmark,
                round_=round_,
                run=run,
                tables=tables,
                licence=opts["license"],
                citation=citation,
            )
            (out / "README.md").write_text(card, encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"{out}: cannot be written ({exc.strerror})") from exc
        counts = ", ".join(f"{t.name} {len(t.rows)}" for t in tables)
        write_result(
            self,
            as_json=opts["json"],
            summary={"out": str(out), "rows": {t.name: len(t.rows) for t in tables}},
            text=f"dataset written to {out}: {counts} rows",
        )

    def run(self, benchmark, ref: str) -> JudgeRun | None:
        if ref == "none":
            return None
        if ref == "latest":
            try:
                return board_runs(benchmark=benchmark).runs[0]
            except BoardNotFound:
                return None
        if not ref.isdigit():
            raise CommandError(f"--judge-run must be a run id, 'latest' or 'none', not {ref!r}")
        run = JudgeRun.objects.filter(
            pk=int(ref), benchmark=benchmark, kind=JudgeRun.Kind.JUDGE
        ).first()
        if run is None:
            raise CommandError(f"benchmark {benchmark.slug!r} has no judge run {ref}")
        return run
