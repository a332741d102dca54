"""`python -m judging.simulator`: run the simulator until Ctrl-C or SIGTERM.

Every flag defaults to its environment variable (`--rate-429` to CONCORD_SIM_RATE_429,
`--port` to CONCORD_SIM_PORT, `--api-key` to CONCORD_SIM_API_KEY, ...).
"""

import argparse
import os
import signal
import sys
import threading
from dataclasses import fields

from .handle import start_simulator
from .settings import Settings, SettingsError, env_name, settings_from_env

HELP = {
    "latency_ms": "mean latency of a completion, in milliseconds",
    "jitter_ms": "latency varies uniformly by up to this many milliseconds",
    "latency_after": "requests answered without the latency before it applies (0: none)",
    "rate_429": "share of requests answered 429 (with Retry-After)",
    "rate_500": "share of requests answered 500",
    "rate_timeout": "share of requests that sleep --timeout-sleep-s before answering",
    "rate_malformed": "share of replies whose content is invalid JSON",
    "rate_wrong_count": "share of judge replies with one verdict too many or too few",
    "rate_html": "share of requests answered 200 with an HTML page",
    "rate_not_completion": "share of requests answered 200 with JSON that is no chat completion",
    "rate_empty": "share of requests answered 200 with an empty JSON body",
    "rate_plain_text": "share of requests answered 200 with plain text",
    "retry_after": "seconds announced in the Retry-After header of a 429",
    "timeout_sleep_s": "how long a timeout fault sleeps, in seconds",
    "hit_rate": "probability that a criterion is judged hit",
    "drift_after": "completions after which the judge drifts (negative: never)",
    "drift_hit_rate": "probability of a hit once the judge has drifted",
    "learns_from_examples": "probability that a verdict the prompt's worked examples "
    "contradict is corrected (0: the examples change nothing)",
    "quirks": "comma-separated provider quirks to play: reasoning_field, "
    "max_completion_tokens_only, no_json_schema",
    "api_key": "require `Authorization: Bearer KEY` on /v1 requests",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    try:
        defaults = settings_from_env()
    except SettingsError as exc:
        sys.exit(f"error: environment: {exc}")
    parser = argparse.ArgumentParser(
        prog="python -m judging.simulator", description="OpenAI-compatible LLM simulator."
    )
    parser.add_argument("--host", default=os.environ.get("CONCORD_SIM_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("CONCORD_SIM_PORT", 8765)))
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    for f in fields(Settings):
        kind = str if f.name in ("api_key", "quirks") else float
        parser.add_argument(
            "--" + f.name.replace("_", "-"),
            dest=f.name,
            type=kind,
            default=getattr(defaults, f.name),
            help=f"{HELP[f.name]} (env {env_name(f.name)})",
        )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    settings = {f.name: getattr(args, f.name) for f in fields(Settings)}
    try:
        sim = start_simulator(args.host, args.port, quiet=args.quiet, **settings)
    except SettingsError as exc:
        sys.exit(f"error: {exc}")
    except OSError as exc:
        sys.exit(f"error: cannot listen on {args.host}:{args.port}: {exc}")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"Concord simulator listening on {sim.base_url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()


if __name__ == "__main__":
    main()
