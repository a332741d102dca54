"""Calls to any OpenAI-compatible endpoint through the official SDK, turned into either a
result or a classified failure. The SDK's own retries are off: retries are ours, counted
and stored.

The SDK is imported on first use: importing it takes over half a second, which every
command, page process and worker would pay at start-up through the URL configuration."""

from __future__ import annotations

import logging
import os
import ssl
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judging.endpoints import EndpointRefused, base_url_check, key_variable_check
from judging.prompting import JudgeRequest

if TYPE_CHECKING:
    import openai

# The SDK logs request details at DEBUG; keep it quiet so nothing near a key is logged.
logging.getLogger("openai").setLevel(logging.WARNING)
logging.getLogger("httpx").setLevel(logging.WARNING)
logging.getLogger("httpx2").setLevel(logging.WARNING)  # the client openai 3.x ships with

NO_KEY = "no-key-needed"


class MissingApiKey(Exception):
    pass


@dataclass(frozen=True)
class CallResult:
    content: str | None
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int
    # A reasoning model's thinking, when the endpoint gives it in a field of its own.
    reasoning: str = ""
    # The model id the provider says answered, and its `system_fingerprint` (the backend
    # configuration), as the completion gave them ("" when it gave none).
    model: str = ""
    system_fingerprint: str = ""


class CallFailed(Exception):
    def __init__(
        self,
        outcome: str,
        message: str,
        *,
        retryable: bool,
        http_status: int | None = None,
        retry_after: float | None = None,
        latency_ms: int = 0,
        raw: str = "",
    ) -> None:
        super().__init__(message)
        self.outcome = outcome
        self.message = message
        self.retryable = retryable
        self.http_status = http_status
        self.retry_after = retry_after
        self.latency_ms = latency_ms
        self.raw = raw


def api_key(env_name: str) -> str:
    """The key from the named environment variable; it is never stored or logged. A name
    the rules refuse (judging/endpoints.py) is never read."""
    if not env_name:
        return NO_KEY
    try:
        key_variable_check(env_name)
    except EndpointRefused as exc:
        raise MissingApiKey(str(exc)) from exc
    value = os.environ.get(env_name, "")
    if not value:
        raise MissingApiKey(f"the environment variable {env_name} (the API key) is not set")
    return value


_tls_lock = threading.Lock()
_tls_context: ssl.SSLContext | None = None


def _shared_tls_context() -> ssl.SSLContext:
    """One TLS context for every client of the process. Each new context loads the
    certificate store again (about 20 ms of CPU under the interpreter lock): 32 lanes
    starting together would otherwise hold each other's first calls back by half a
    second. A context is safe to share between connections and threads."""
    global _tls_context
    with _tls_lock:
        if _tls_context is None:
            # Built as the SDK's default client builds its own (same certificate store,
            # same environment variables honoured).
            import httpx2  # the HTTP client of the pinned openai SDK

            _tls_context = httpx2.create_ssl_context()
        return _tls_context


def client_new(*, base_url: str, api_key_env: str, timeout: float) -> openai.OpenAI:
    """A client with its own connection pool. Lanes each keep one: threads sharing one
    pool queue on its lock (with 32 lanes in a process, a tenth of a second a call). An
    endpoint the rules refuse gets no client, so no key is sent there."""
    try:
        base_url_check(base_url)
        key = api_key(api_key_env)
    except (EndpointRefused, MissingApiKey) as exc:
        raise CallFailed("connection", str(exc), retryable=False) from exc
    import openai

    return openai.OpenAI(
        base_url=base_url or None,
        api_key=key,
        timeout=timeout,
        max_retries=0,
        http_client=openai.DefaultHttpxClient(verify=_shared_tls_context()),
    )


def _retry_after(response) -> float | None:
    if response is None:
        return None
    value = response.headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def call_chat(
    client: openai.OpenAI,
    *,
    model: str,
    request: JudgeRequest,
    temperature: float,
    seed: int | None,
    max_tokens: int,
) -> CallResult:
    options: dict = {
        "model": model,
        "messages": request.messages,
        "temperature": temperature,
        _limit_name(client, model): max_tokens,
    }
    if seed is not None:
        options["seed"] = seed
    if request.response_format is not None:
        options["response_format"] = request.response_format
    import openai

    started = time.perf_counter()

    def elapsed() -> int:
        return int((time.perf_counter() - started) * 1000)

    try:
        try:
            raw = client.chat.completions.with_raw_response.create(**options)
        except openai.BadRequestError as exc:
            if not _wants_max_completion_tokens(exc, options):
                raise
            # Newer and reasoning models refuse `max_tokens`: ask again at once the way
            # they want, and from now on for this endpoint and model.
            _MAX_COMPLETION_TOKENS.add((str(client.base_url), model))
            options["max_completion_tokens"] = options.pop("max_tokens")
            raw = client.chat.completions.with_raw_response.create(**options)
    except openai.APITimeoutError as exc:
        raise CallFailed(
            "timeout", "the request timed out", retryable=True, latency_ms=elapsed()
        ) from exc
    except openai.RateLimitError as exc:
        raise CallFailed(
            "rate_limited",
            "rate limited (HTTP 429)",
            retryable=True,
            http_status=429,
            retry_after=_retry_after(exc.response),
            latency_ms=elapsed(),
        ) from exc
    except openai.APIStatusError as exc:
        status = exc.status_code
        retryable = status >= 500 or status in (408, 409)
        hint = ""
        if status == 400 and request.response_format is not None:
            hint = "; if the endpoint rejects structured output, turn it off in the config"
        raise CallFailed(
            "http_error",
            f"HTTP {status} from the endpoint{hint}",
            retryable=retryable,
            http_status=status,
            retry_after=_retry_after(exc.response),
            latency_ms=elapsed(),
            raw=_body(exc),
        ) from exc
    except openai.APIConnectionError as exc:
        raise CallFailed(
            "connection", "the endpoint could not be reached", retryable=True, latency_ms=elapsed()
        ) from exc
    except openai.APIError as exc:  # any other answer the SDK could not take
        raise CallFailed(
            "invalid",
            f"the endpoint's answer could not be read ({type(exc).__name__})",
            retryable=True,
            latency_ms=elapsed(),
        ) from exc
    return _result(raw, latency_ms=elapsed())


# (base URL, model) pairs that want `max_completion_tokens` instead of `max_tokens`, as
# learnt from their refusals in this process.
_MAX_COMPLETION_TOKENS: set[tuple[str, str]] = set()


def _limit_name(client, model: str) -> str:
    if (str(client.base_url), model) in _MAX_COMPLETION_TOKENS:
        return "max_completion_tokens"
    return "max_tokens"


def _wants_max_completion_tokens(exc, options: dict) -> bool:
    if "max_tokens" not in options:
        return False
    text = _body(exc) or str(exc)
    return "max_completion_tokens" in text


def _result(raw, *, latency_ms: int) -> CallResult:
    """The reply of a chat completion; anything else the endpoint answered with (an HTML
    page, other JSON, an empty body) is a failed attempt naming what came back."""
    response = raw.http_response
    try:
        completion = raw.parse()
    except Exception:  # not JSON: the SDK's own error says less than what follows
        completion = None
    reply = _reply_of(completion)
    if reply is None:
        raise CallFailed(
            "invalid",
            _not_a_completion(response),
            retryable=True,
            http_status=response.status_code,
            latency_ms=latency_ms,
            raw=_text(response),
        )
    content, prompt_tokens, completion_tokens, reasoning = reply
    return CallResult(
        content=content,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        latency_ms=latency_ms,
        reasoning=reasoning,
        model=_label(completion, "model"),
        system_fingerprint=_label(completion, "system_fingerprint"),
    )


def _label(completion: object, name: str) -> str:
    value = getattr(completion, name, None)
    return value[:200] if isinstance(value, str) else ""


def _reply_of(completion: object) -> tuple[str | None, int, int, str] | None:
    """(content, prompt tokens, completion tokens, reasoning) of a chat completion; None for
    anything that is not one. The SDK builds its objects without validating them, so any
    field may be missing or of another type. Reasoning models give their thinking apart
    from the answer, as `reasoning_content` (DeepSeek and others) or `reasoning`."""
    from openai.types.chat import ChatCompletion

    if not isinstance(completion, ChatCompletion):
        return None
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list):
        return None
    content, reasoning = None, ""
    if choices:
        message = getattr(choices[0], "message", None)
        if message is None:
            return None
        content = getattr(message, "content", None)
        if content is not None and not isinstance(content, str):
            return None
        for name in ("reasoning_content", "reasoning"):
            value = getattr(message, name, None)
            if isinstance(value, str) and value:
                reasoning = value
                break
    usage = getattr(completion, "usage", None)
    return content, _count(usage, "prompt_tokens"), _count(usage, "completion_tokens"), reasoning


def _count(usage: object, name: str) -> int:
    value = getattr(usage, name, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _not_a_completion(response) -> str:
    status = response.status_code
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if not response.content:
        return f"the endpoint answered HTTP {status} with an empty body, not a chat completion"
    if kind.endswith("json"):
        return f"the endpoint answered HTTP {status} with JSON that is not a chat completion"
    kind = kind or "no content type"
    message = f"the endpoint answered HTTP {status} with {kind}, not a chat completion"
    if "html" in kind:
        message += "; is the base URL the API's (it often ends in /v1)?"
    return message


def _text(response) -> str:
    try:
        return response.text[:2000]
    except Exception:  # the body is a courtesy, never a reason to fail
        return ""


def _body(exc: openai.APIStatusError) -> str:
    return _text(exc.response)
