import json
import sys
import threading
import time

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Benchmark, System
from judging.models import JudgeConfig, JudgeRun, PromptTemplate
from judging.selectors.runs import run_progress
from judging.services.execution import run_here
from judging.services.runs import RunNotStartable, judge_run_start
from judging.tasks import dispatch_and_watch

BAR_WIDTH = 30


class Command(BaseCommand):
    help = "Judge the responses of one or more systems with an LLM and wait for the run."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--system", action="append", required=True, dest="systems")
        parser.add_argument("--base-url", required=True)
        parser.add_argument("--model", required=True)
        parser.add_argument("--api-key-env", default="", help="variable holding the API key")
        parser.add_argument("--concurrency", type=int, default=8)
        parser.add_argument("--rpm", type=int, default=0, help="requests per minute (0: none)")
        parser.add_argument("--max-attempts", type=int, default=5)
        parser.add_argument("--timeout", type=float, default=120.0)
        parser.add_argument("--temperature", type=float, default=0.0)
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--prompt", default="judge-zh", help="prompt template name")
        parser.add_argument(
            "--plain-json", action="store_true", help="no structured output (json_schema)"
        )
        parser.add_argument("--fresh", action="store_true", help="do not reuse cached answers")
        parser.add_argument(
            "--via-workers", action="store_true", help="let the Celery workers do the calls"
        )
        parser.add_argument("--json", action="store_true", help="print one JSON summary")

    def handle(self, *args, **opts) -> None:
        benchmark = Benchmark.objects.filter(slug=opts["benchmark"]).first()
        if benchmark is None:
            raise CommandError(f"no benchmark with slug {opts['benchmark']!r}")
        systems = list(System.objects.filter(name__in=opts["systems"]))
        missing = sorted(set(opts["systems"]) - {s.name for s in systems})
        if missing:
            raise CommandError(f"unknown system(s): {', '.join(missing)}")
        prompt = PromptTemplate.objects.filter(name=opts["prompt"]).order_by("-version").first()
        if prompt is None:
            raise CommandError(f"no prompt template named {opts['prompt']!r}")
        config, _ = JudgeConfig.objects.update_or_create(
            name=f"cli: {opts['model']} @ {opts['base_url']}"[:100],
            defaults={
                "base_url": opts["base_url"],
                "model": opts["model"],
                "api_key_env": opts["api_key_env"],
                "max_concurrency": max(1, opts["concurrency"]),
                "requests_per_minute": max(0, opts["rpm"]),
                "max_attempts": max(1, opts["max_attempts"]),
                "timeout_seconds": opts["timeout"],
                "temperature": opts["temperature"],
                "seed": opts["seed"],
                "structured_output": not opts["plain_json"],
                "prompt": prompt,
            },
        )
        try:
            run = judge_run_start(
                benchmark=benchmark, systems=systems, config=config, fresh_calls=opts["fresh"]
            )
        except RunNotStartable as exc:
            raise CommandError(str(exc)) from exc
        started = time.perf_counter()
        if opts["via_workers"]:
            dispatch_and_watch(run)
            worker = None
        else:
            worker = threading.Thread(
                target=run_here, kwargs={"run_id": run.pk, "lanes": config.max_concurrency}
            )
            worker.start()
        self._wait(run, worker, quiet=opts["json"])
        progress = run_progress(run=run)
        summary = {
            "run": run.pk,
            "calls": progress.total,
            "done": progress.done,
            "failed": progress.failed,
            "seconds": round(time.perf_counter() - started, 2),
            "prompt_tokens": progress.prompt_tokens,
            "completion_tokens": progress.completion_tokens,
        }
        if opts["json"]:
            self.stdout.write(json.dumps(summary))
        else:
            self.stdout.write(
                f"run {run.pk}: {progress.done} judged, {progress.failed} failed, "
                f"{summary['seconds']} s, {progress.prompt_tokens} prompt + "
                f"{progress.completion_tokens} completion tokens"
            )

    def _wait(self, run: JudgeRun, worker: threading.Thread | None, *, quiet: bool) -> None:
        while True:
            run.refresh_from_db(fields=["status"])
            progress = run_progress(run=run)
            if not quiet:
                filled = int(BAR_WIDTH * progress.percent / 100)
                sys.stderr.write(
                    f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] "
                    f"{progress.finished}/{progress.total} "
                    f"(failed {progress.failed}, {progress.per_minute:.0f}/min)   "
                )
                sys.stderr.flush()
            if run.status != JudgeRun.Status.RUNNING and (worker is None or not worker.is_alive()):
                break
            if worker is not None and not worker.is_alive():
                break
            time.sleep(0.5)
        if worker is not None:
            worker.join()
        if not quiet:
            sys.stderr.write("\n")
