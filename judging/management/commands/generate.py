import json

from django.core.management.base import BaseCommand, CommandError

from annotation.models import System
from judging.management.commands._runs import (
    add_provider_arguments,
    benchmark_from,
    version_from,
    workers_dispatch,
)
from judging.management.commands._watch import execute_and_wait, exit_for, summary_text
from judging.services.runs import RunNotStartable, generation_run_start


class Command(BaseCommand):
    help = "Ask a candidate model to answer every case; its replies become a system's responses."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--system", required=True, help="system name (created if new)")
        parser.add_argument("--kind", choices=System.Kind.values, default=System.Kind.LLM)
        add_provider_arguments(parser, default_prompt="generate-zh")

    def handle(self, *args, **opts) -> None:
        benchmark = benchmark_from(opts)
        version = version_from(opts, kind="generation")
        try:
            run = generation_run_start(
                benchmark=benchmark,
                system_name=opts["system"],
                system_kind=opts["kind"],
                version=version,
                dispatch=workers_dispatch(opts),
            )
        except RunNotStartable as exc:
            raise CommandError(str(exc)) from exc
        summary = execute_and_wait(
            run, via_workers=opts["via_workers"], quiet=opts["json"], processes=opts["processes"]
        )
        if opts["json"]:
            self.stdout.write(json.dumps(summary))
        else:
            self.stdout.write(summary_text(summary, unit="replies written"))
        exit_for(summary)
