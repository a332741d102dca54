import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from annotation.models import ReviewRound, System
from judging.management.commands._runs import (
    add_provider_arguments,
    benchmark_from,
    version_from,
    workers_dispatch,
)
from judging.management.commands._watch import (
    ensemble_text,
    execute_and_wait,
    exit_for,
    summary_text,
)
from judging.selectors.output_mode import run_output_notice
from judging.selectors.runs import interrupted_runs_of
from judging.services.prompts import language_warning
from judging.services.run_estimate import run_estimate
from judging.services.runs import RunNotStartable, judge_run_start


class Command(BaseCommand):
    help = "Judge the responses of one or more systems with an LLM and wait for the run."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--system", action="append", default=[], dest="systems", help="(repeatable)"
        )
        parser.add_argument(
            "--round",
            default="",
            dest="round_name",
            help="judge exactly this review round's items, on the rubric versions it froze",
        )
        add_provider_arguments(parser, default_prompt="judge-zh")
        parser.add_argument(
            "--plain-json", action="store_true", help="no structured output (json_schema)"
        )
        parser.add_argument("--fresh", action="store_true", help="do not reuse cached answers")
        parser.add_argument(
            "--samples",
            type=int,
            default=0,
            help="self-consistency: ask the model this many times per response (odd, 3 to "
            "9, with --temperature above 0) and take the majority per criterion",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="print the tasks, the answers already cached, the estimated tokens and cost, "
            "and stop (no run is created, no call made)",
        )
        parser.add_argument(
            "--include-failed-generations",
            action="store_true",
            help="also judge responses that are empty or begin with 'Error' (left out by "
            "default, as HeartBench's scorer skips them)",
        )

    def handle(self, *args, **opts) -> None:
        benchmark = benchmark_from(opts)
        systems = list(System.objects.filter(name__in=opts["systems"]))
        missing = sorted(set(opts["systems"]) - {s.name for s in systems})
        if missing:
            raise CommandError(f"unknown system(s): {', '.join(missing)}")
        round_ = None
        if opts["round_name"]:
            round_ = ReviewRound.objects.filter(
                benchmark=benchmark, name=opts["round_name"]
            ).first()
            if round_ is None:
                raise CommandError(
                    f"no review round {opts['round_name']!r} in benchmark {benchmark.slug!r}"
                )
        elif not systems:
            raise CommandError("name the systems to judge (--system), or a review round (--round)")
        version = version_from(opts, structured=not opts["plain_json"], save=not opts["dry_run"])
        warning = language_warning(benchmark=benchmark, prompt=version.prompt)
        if warning:
            self.stderr.write(f"warning: {warning}")
        for earlier in (
            interrupted_runs_of(benchmark=benchmark, version=version) if version.pk else ()
        ):
            # A new run starts, as asked; the interrupted one is not forgotten.
            self.stderr.write(
                f"note: run {earlier} of this judge on {benchmark.slug} was interrupted; "
                f"to go on with it instead: python manage.py runs resume {earlier}"
            )
        if opts["dry_run"]:
            self.dry_run(benchmark, systems, version, round_, opts)
            return
        try:
            run = judge_run_start(
                benchmark=benchmark,
                systems=systems,
                version=version,
                round_=round_,
                fresh_calls=opts["fresh"],
                failed_generations=opts["include_failed_generations"],
                dispatch=workers_dispatch(opts),
            )
        except RunNotStartable as exc:
            raise CommandError(str(exc)) from exc
        notice = run_output_notice(run=run)
        if notice is not None:
            self.stderr.write(f"note: {notice.text()}")
        summary = execute_and_wait(
            run, via_workers=opts["via_workers"], quiet=opts["json"], processes=opts["processes"]
        )
        if opts["json"]:
            self.stdout.write(json.dumps(summary))
        else:
            self.stdout.write(summary_text(summary, unit="judged"))
            if "ensemble" in summary:
                self.stdout.write(ensemble_text(summary["ensemble"]))
        exit_for(summary)

    def dry_run(self, benchmark, systems, version, round_, opts) -> None:
        try:
            estimate = run_estimate(
                benchmark=benchmark,
                systems=systems,
                version=version,
                round_=round_,
                fresh_calls=opts["fresh"],
                failed_generations=opts["include_failed_generations"],
            )
        except RunNotStartable as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            self.stdout.write(json.dumps(estimate))
            return
        anchors = (
            f" (of them {estimate['anchor_tasks']} drift anchors added; anchors are always "
            "called anew)"
            if estimate["anchor_tasks"]
            else ""
        )
        basis = (
            "calibrated on this model's earlier runs"
            if estimate["calibrated_from_history"]
            else "from the text; no earlier run of this model to calibrate on"
        )
        self.stdout.write(
            f"dry run, nothing created: {estimate['tasks']} tasks{anchors}, "
            f"{estimate['cached']} answered before (reused), {estimate['calls']} calls to make\n"
            f"estimated tokens ({basis}): {estimate['prompt_tokens']} prompt + "
            f"{estimate['completion_tokens']} completion\n"
            f"estimated cost: {estimate['cost']} {settings.CURRENCY} (at "
            f"{estimate['price_prompt_per_1k']} and "
            f"{estimate['price_completion_per_1k']} per 1,000 tokens; --price-in and "
            "--price-out set them per million)"
        )
