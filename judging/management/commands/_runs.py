"""Shared plumbing of the `judge` and `generate` commands."""

from decimal import Decimal

from django.core.management.base import CommandError

from annotation.models import Benchmark
from judging.ensemble_vote import self_consistency
from judging.models import JudgeConfig, JudgeVersion, PromptTemplate
from judging.services.judge_versions import (
    CallSettings,
    ConfigInvalid,
    VersionSettings,
    judge_version_for,
    judge_version_preview,
)
from judging.services.prompts import PromptInvalid, prompt_from_file
from judging.tasks import dispatch_and_watch


def add_provider_arguments(parser, *, default_prompt: str) -> None:
    parser.add_argument("--benchmark", required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--api-key-env", default="", help="variable holding the API key")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="processes sharing the lanes when working here (default 1: one process makes "
        "about 80 calls/s on 2 cores; more only help far faster endpoints on more cores)",
    )
    parser.add_argument("--rpm", type=int, default=0, help="requests per minute (0: none)")
    parser.add_argument("--max-attempts", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--max-tokens", type=int, default=4096, help="max output tokens")
    parser.add_argument(
        "--judge",
        default="",
        help="configuration name (default: named after the model and endpoint); the run "
        "uses its version with exactly these settings, made if new",
    )
    parser.add_argument("--prompt", default=default_prompt, help="prompt template name")
    parser.add_argument(
        "--prompt-file",
        default="",
        help='a prompt template of your own (JSON with "system" and "user", or a text '
        "file as the user message), its placeholders checked; stored as a new version of "
        "the file's name",
    )
    parser.add_argument(
        "--via-workers", action="store_true", help="let the Celery workers do the calls"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON summary")
    parser.add_argument(
        "--price-in",
        type=Decimal,
        default=None,
        help="price per million prompt tokens (kept on the configuration; default: as set)",
    )
    parser.add_argument(
        "--price-out",
        type=Decimal,
        default=None,
        help="price per million completion tokens (kept on the configuration; default: as set)",
    )


def benchmark_from(opts) -> Benchmark:
    benchmark = Benchmark.objects.filter(slug=opts["benchmark"]).first()
    if benchmark is None:
        raise CommandError(f"no benchmark with slug {opts['benchmark']!r}")
    return benchmark


def version_from(
    opts, *, structured: bool = True, kind: str = "judge", save: bool = True
) -> JudgeVersion:
    """The judge version with exactly these settings: of the configuration named by
    `--judge`, or by default one named after the model and endpoint; found, or made. Its
    configuration's call settings (concurrency, pace, retries) are updated to these options
    (they never change a verdict). Each run names the version it used. Without `save` (a
    dry run), nothing is written: the stored version, or an unsaved one."""
    if opts.get("prompt_file"):
        try:
            prompt = prompt_from_file(opts["prompt_file"], kind=kind, save=save)
        except PromptInvalid as exc:
            raise CommandError(f"--prompt-file: {exc}") from exc
    else:
        prompt = PromptTemplate.objects.filter(name=opts["prompt"]).order_by("-version").first()
    if prompt is None:
        raise CommandError(f"no prompt template named {opts['prompt']!r}")
    name = (opts.get("judge") or "").strip() or _default_name(opts, kind=prompt.kind)
    prices = _prices(name, opts)
    try:
        return (judge_version_for if save else judge_version_preview)(
            config_name=name,
            settings=VersionSettings(
                model=opts["model"],
                base_url=opts["base_url"],
                prompt=prompt,
                temperature=opts["temperature"],
                seed=opts["seed"],
                max_output_tokens=opts["max_tokens"],
                structured_output=structured,
                ensemble=self_consistency(opts["samples"]) if opts.get("samples") else None,
            ),
            calls=CallSettings(
                api_key_env=opts["api_key_env"],
                max_concurrency=max(1, opts["concurrency"]),
                requests_per_minute=max(0, opts["rpm"]),
                max_attempts=max(1, opts["max_attempts"]),
                timeout_seconds=opts["timeout"],
                **prices,
            ),
        )
    except ConfigInvalid as exc:
        raise CommandError("; ".join(exc.errors.values())) from exc


# The mark of a configuration that generates replies, where a judge configuration has none:
# a sign rather than a word, since the pages show configuration names to every reader.
GENERATION_MARK = "✎"


def _default_name(opts, *, kind: str) -> str:
    """The configuration named after the model and endpoint: `cli: model @ url` for a
    judge, the generation mark after it for a model generating replies. A configuration
    named the former way (the prompt kind in English words) is found again under it."""
    base = f"cli: {opts['model']} @ {opts['base_url']}"
    mark = f" {GENERATION_MARK}" if kind == PromptTemplate.Kind.GENERATION else ""
    name = f"{base[: 100 - len(mark)]}{mark}"
    former = f"{base} ({kind})"[:100]
    taken = JudgeConfig.objects.filter(name__in=[name, former]).values_list("name", flat=True)
    return former if set(taken) == {former} else name


def _prices(name: str, opts) -> dict:
    """The prices per 1,000 tokens the configuration keeps: from --price-in/--price-out
    (given per million, as providers publish them), else the ones it already has."""
    config = JudgeConfig.objects.filter(name=name).first()
    prices = {
        "price_prompt_per_1k": config.price_prompt_per_1k if config else Decimal(0),
        "price_completion_per_1k": config.price_completion_per_1k if config else Decimal(0),
    }
    for option, field in (
        ("price_in", "price_prompt_per_1k"),
        ("price_out", "price_completion_per_1k"),
    ):
        given = opts.get(option)
        if given is not None:
            if given < 0:
                raise CommandError(f"--{option.replace('_', '-')} must not be negative")
            prices[field] = given / 1000
    return prices


def workers_dispatch(opts):
    """What the start service hands the run to: the workers (it checks first that their
    broker answers), or nobody, when this process does the work."""
    return dispatch_and_watch if opts["via_workers"] else None
