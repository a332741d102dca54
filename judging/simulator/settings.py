"""Settings of a running simulator: latency, fault rates and the optional API key.

The same names are used everywhere: keyword arguments of `start_simulator`, keys of the
JSON body of `POST /_sim/config` (dashes are accepted for underscores), the command-line
flags (`--rate-429`) and the environment (`CONCORD_SIM_RATE_429`).
"""

import os
from dataclasses import asdict, dataclass, field, fields, replace

# Fault kinds in the order they are drawn; also the values of the `X-Sim-Fault` header.
# The last four answer HTTP 200 with something other than a chat completion, as a proxy's
# login page, a web UI behind the wrong base URL or a broken gateway do.
FAULT_KINDS = (
    "429",
    "500",
    "timeout",
    "malformed",
    "wrong_count",
    "html",
    "not_completion",
    "empty",
    "plain_text",
)
RATE_FIELDS = {kind: "rate_" + kind for kind in FAULT_KINDS}
# Ways real providers differ from the reference API, switched on by name (comma-separated):
# a reasoning model's thinking in a field of its own ("reasoning_content"); a model that
# refuses `max_tokens` and wants `max_completion_tokens`; an endpoint without structured
# output (`response_format` of type `json_schema` refused).
QUIRKS = ("reasoning_field", "max_completion_tokens_only", "no_json_schema")
ENV_PREFIX = "CONCORD_SIM_"


class SettingsError(ValueError):
    """A setting was unknown or out of range."""


@dataclass(frozen=True)
class Settings:
    latency_ms: float = 0.0
    jitter_ms: float = 0.0
    # An endpoint that slows down: requests received before this many others are answered
    # without the latency (0, the default: every request waits it).
    latency_after: float = 0.0
    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_timeout: float = 0.0
    rate_malformed: float = 0.0
    rate_wrong_count: float = 0.0
    rate_html: float = 0.0
    rate_not_completion: float = 0.0
    rate_empty: float = 0.0
    rate_plain_text: float = 0.0
    retry_after: float = 1.0
    timeout_sleep_s: float = 30.0
    hit_rate: float = 0.5
    # A judge that drifts (see drift.py): from this completion on, verdicts at the drift rate.
    drift_after: float = -1.0
    drift_hit_rate: float = 0.5
    # The probability that a verdict the prompt's worked examples contradict is corrected
    # (the "learns from examples" mode); 0, the default, ignores them.
    learns_from_examples: float = 0.0
    quirks: str = ""
    api_key: str | None = field(default=None, repr=False)

    def quirk(self, name: str) -> bool:
        return name in self.quirks.split(",")

    def rates(self) -> dict[str, float]:
        return {kind: getattr(self, name) for kind, name in RATE_FIELDS.items()}

    def public(self) -> dict:
        """The settings as JSON, the key itself replaced by whether one is set."""
        data = asdict(self)
        data["api_key"] = self.api_key is not None
        return data

    def updated(self, changes: dict) -> "Settings":
        """A copy with `changes` applied (a partial dict); raises SettingsError."""
        known = {f.name for f in fields(self)}
        clean = {}
        for raw_name, value in changes.items():
            name = str(raw_name).replace("-", "_")
            if name not in known:
                raise SettingsError(f"unknown setting {raw_name!r}")
            clean[name] = _coerce(name, value)
        result = replace(self, **clean)
        result.check()
        return result

    def check(self) -> None:
        for name in ("latency_ms", "jitter_ms", "latency_after", "retry_after", "timeout_sleep_s"):
            if getattr(self, name) < 0:
                raise SettingsError(f"{name} must not be negative")
        for name in (*RATE_FIELDS.values(), "hit_rate", "drift_hit_rate", "learns_from_examples"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise SettingsError(f"{name} must be between 0 and 1")
        if sum(self.rates().values()) > 1.0 + 1e-9:
            raise SettingsError("the fault rates must add up to at most 1")


def _coerce(name: str, value: object) -> object:
    if name == "quirks":
        names = [part.strip() for part in str(value or "").split(",") if part.strip()]
        unknown = sorted(set(names) - set(QUIRKS))
        if unknown:
            raise SettingsError(
                f"unknown quirk(s) {', '.join(unknown)}; known: {', '.join(QUIRKS)}"
            )
        return ",".join(names)
    if name == "api_key":
        if value is None or value == "":
            return None
        if not isinstance(value, str):
            raise SettingsError("api_key must be a string or null")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise SettingsError(f"{name} must be a number")
    try:
        return float(value)
    except ValueError:
        raise SettingsError(f"{name} must be a number") from None


def env_name(name: str) -> str:
    return ENV_PREFIX + name.upper()


def settings_from_env(environ: dict | None = None) -> Settings:
    """Defaults overridden by `CONCORD_SIM_<NAME>` variables (e.g. CONCORD_SIM_LATENCY_MS)."""
    environ = os.environ if environ is None else environ
    changes = {
        f.name: environ[env_name(f.name)] for f in fields(Settings) if env_name(f.name) in environ
    }
    return Settings().updated(changes)
