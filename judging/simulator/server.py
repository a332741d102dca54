"""The HTTP server: routes, authentication, latency and faults."""

import contextlib
import hmac
import json
import socket
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from judging.text_measure import messages_tokens

from . import drift, text
from .behaviour import RequestError, build_reply, message_text, parse_request
from .faults import AttemptCounter, Stats, draw_fault
from .settings import FAULT_KINDS, Settings, SettingsError

MODEL_ID = "concord-sim"
FINGERPRINT = drift.FINGERPRINT
HEADER_SETTINGS = {
    "X-Sim-Latency-Ms": "latency_ms",
    "X-Sim-Jitter-Ms": "jitter_ms",
    "X-Sim-Retry-After": "retry_after",
    "X-Sim-Timeout-Sleep-S": "timeout_sleep_s",
    "X-Sim-Hit-Rate": "hit_rate",
    "X-Sim-Learns-From-Examples": "learns_from_examples",
}


class SimulatorServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], settings: Settings, quiet: bool = True):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, Handler)
        settings.check()
        self.settings = settings
        self.quiet = quiet
        self.stats = Stats()
        self.attempts = AttemptCounter()
        self.clock = drift.CompletionClock()
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()

    def configure(self, changes: dict) -> Settings:
        with self._lock:
            self.settings = self.settings.updated(changes)
            return self.settings

    def reset(self) -> None:
        self.stats.reset()
        self.attempts.clear()
        self.clock.reset()

    def process_request(self, request, client_address):
        with self._lock:
            self._connections.add(request)
        self.stats.connection()
        super().process_request(request, client_address)

    def shutdown_request(self, request):
        with self._lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Drop open keep-alive connections so their threads end."""
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request, client_address):
        if self.stopping.is_set() or isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return  # the client went away (e.g. it timed out): nothing to report
        super().handle_error(request, client_address)


def _error(message: str, kind: str, code: str | None = None, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive; every reply carries a Content-Length
    server_version = "ConcordSimulator/1.0"
    sys_version = ""
    disable_nagle_algorithm = True
    timeout = 300  # idle keep-alive connections are closed after this many seconds
    server: SimulatorServer

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def log_message(self, format: str, *args) -> None:
        if not self.server.quiet:  # the request line only: headers (and keys) never appear
            sys.stderr.write(f"{self.address_string()} - {format % args}\n")

    # -- plumbing ------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _send_json(self, status: int, payload: object, headers: dict | None = None) -> None:
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self._send_bytes(status, body, "application/json", headers)

    def _send_bytes(
        self, status: int, body: bytes, content_type: str, headers: dict | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _dispatch(self, method: str) -> None:
        try:
            raw = self._read_body() if method == "POST" else b""
            path = self.path.split("?", 1)[0].rstrip("/") or "/"
            api_path = path[3:] if path.startswith("/v1/") else path
            is_api = api_path in ("/chat/completions", "/models") or api_path.startswith("/models/")
            if is_api and not self._authorised():
                return
            route = ROUTES.get((method, api_path))
            if route is None and method == "GET" and api_path.startswith("/models/"):
                route = Handler._model
            if route is None:
                known = {p for _, p in ROUTES}
                status = 405 if api_path in known else 404
                self._send_json(
                    status, _error(f"No route for {method} {path}", "invalid_request_error")
                )
                return
            route(self, raw)
        except (ConnectionError, TimeoutError):
            raise
        except Exception:  # a bug in the simulator: say so rather than drop the connection
            traceback.print_exc()
            self.close_connection = True
            self._send_json(500, _error("simulator error", "server_error"))

    def _authorised(self) -> bool:
        key = self.server.settings.api_key
        if key is None:
            return True
        given = self.headers.get("Authorization", "")
        token = given[7:].strip() if given[:7].lower() == "bearer " else ""
        if hmac.compare_digest(token.encode(), key.encode()):
            return True
        self._send_json(
            401,
            _error("Incorrect API key provided.", "invalid_request_error", "invalid_api_key", None),
        )
        return False

    # -- routes --------------------------------------------------------------------------

    def _health(self, raw: bytes) -> None:
        self._send_json(200, {"status": "ok"})

    def _models(self, raw: bytes) -> None:
        self._send_json(200, {"object": "list", "data": [MODEL_OBJECT]})

    def _model(self, raw: bytes) -> None:
        if self.path.split("?", 1)[0].rstrip("/").endswith("/" + MODEL_ID):
            self._send_json(200, MODEL_OBJECT)
        else:
            self._send_json(
                404, _error("The model does not exist.", "invalid_request_error", "model_not_found")
            )

    def _get_config(self, raw: bytes) -> None:
        self._send_json(200, self.server.settings.public())

    def _set_config(self, raw: bytes) -> None:
        try:
            changes = json.loads(raw or b"{}")
            if not isinstance(changes, dict):
                raise SettingsError("the body must be a JSON object")
            settings = self.server.configure(changes)
        except (ValueError, SettingsError) as exc:
            self._send_json(400, _error(str(exc), "invalid_request_error"))
            return
        self._send_json(200, settings.public())

    def _stats(self, raw: bytes) -> None:
        self._send_json(200, self.server.stats.snapshot())

    def _reset(self, raw: bytes) -> None:
        self.server.reset()
        self._send_json(200, self.server.stats.snapshot())

    def _chat(self, raw: bytes) -> None:
        stats = self.server.stats
        try:
            settings, forced = self._request_settings()
            body = json.loads(raw)
            req = parse_request(body)
            _provider_refusals(settings, body)
        except (ValueError, SettingsError) as exc:
            param = exc.param if isinstance(exc, RequestError) else None
            if isinstance(exc, json.JSONDecodeError):
                exc = ValueError("We could not parse the JSON body of your request.")
            stats.record(status=400)
            self._send_json(400, _error(str(exc), "invalid_request_error", None, param))
            return
        earlier = stats.begin()
        try:
            self._complete(req, body, settings, forced, slow=earlier >= settings.latency_after)
        finally:
            stats.end()

    def _request_settings(self) -> tuple[Settings, str | None]:
        """The server settings with X-Sim-* header overrides, and the forced fault if any."""
        changes = {
            name: self.headers[header]
            for header, name in HEADER_SETTINGS.items()
            if self.headers.get(header) is not None
        }
        settings = self.server.settings.updated(changes) if changes else self.server.settings
        forced = self.headers.get("X-Sim-Fault")
        if forced is not None:
            forced = forced.strip().lower().replace("-", "_")
            if forced not in (*FAULT_KINDS, "none"):
                raise SettingsError(f"X-Sim-Fault must be one of {', '.join(FAULT_KINDS)}, none")
        return settings, forced

    def _complete(
        self, req, body: dict, settings: Settings, forced: str | None, *, slow: bool
    ) -> None:
        stats = self.server.stats
        body_hash = text.digest(json.dumps(body, sort_keys=True, ensure_ascii=False))
        attempt = self.server.attempts.next(body_hash)
        fault = forced or draw_fault(settings.rates(), body_hash, attempt)
        fault = None if fault == "none" else fault
        jitter = settings.jitter_ms * (2 * text.unit(body_hash, "jitter", attempt) - 1)
        delay = max(settings.latency_ms + jitter, 0.0) / 1000 if slow else 0.0
        if fault == "timeout":
            delay = settings.timeout_sleep_s
            stats.record(fault=fault)  # counted now: the client has usually gone when it ends
        self.server.stopping.wait(delay)
        headers = {"X-Sim-Attempt": str(attempt), "X-Request-Id": f"req_sim_{body_hash[:24]}"}
        if fault in ("429", "500"):
            stats.record(status=int(fault), fault=fault, retry=attempt > 0)
            headers["X-Sim-Fault"] = fault
            if fault == "429":
                headers["Retry-After"] = _seconds(settings.retry_after)
                headers["retry-after-ms"] = str(round(settings.retry_after * 1000))
                payload = _error(
                    "Rate limit reached (simulated).", "requests", "rate_limit_exceeded"
                )
            else:
                payload = _error("The server had an error (simulated).", "server_error")
            self._send_json(int(fault), payload, headers)
            return
        if fault in NOT_COMPLETIONS:
            stats.record(status=200, fault=fault, retry=attempt > 0)
            headers["X-Sim-Fault"] = fault
            content_type, body = NOT_COMPLETIONS[fault]
            self._send_bytes(200, body, content_type, headers)
            return
        choices, applied = [], None
        hit_rate, fingerprint = drift.behaviour(settings, self.server.clock.tick())
        for index in range(req.n):
            reply = build_reply(req, hit_rate, index, learns=settings.learns_from_examples)
            content = reply.content
            if fault == "wrong_count" and reply.verdict_key is not None:
                count = len(json.loads(content)[reply.verdict_key])
                delta = 1 if count == 0 or text.unit(body_hash, "wrong", attempt) < 0.5 else -1
                content = build_reply(
                    req, hit_rate, index, delta, settings.learns_from_examples
                ).content
                applied = fault
            elif fault == "malformed":
                content = content[: max(len(content) // 2, 1)]
                applied = fault
            finish = "stop"
            if req.max_tokens is not None and text.estimate_tokens(content) > req.max_tokens:
                content, finish = text.cut_to_tokens(content, req.max_tokens), "length"
            choices.append((content, finish))
        headers["X-Sim-Fault"] = applied or ("timeout" if fault == "timeout" else "none")
        stats.record(status=200, fault=applied, kind=reply.kind, retry=attempt > 0)
        reasoning = None
        if settings.quirk("reasoning_field"):
            reasoning = f"Thinking (simulated) about {len(req.messages)} messages first."
        completion = _completion(req, body_hash, attempt, choices, reasoning, fingerprint)
        self._send_json(200, completion, headers)


def _provider_refusals(settings: Settings, body: dict) -> None:
    """What some providers refuse, as they word it, when the simulator plays them."""
    if settings.quirk("max_completion_tokens_only") and "max_tokens" in body:
        raise RequestError(
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
            "'max_completion_tokens' instead.",
            "max_tokens",
        )
    response_format = body.get("response_format")
    if (
        settings.quirk("no_json_schema")
        and isinstance(response_format, dict)
        and response_format.get("type") == "json_schema"
    ):
        raise RequestError(
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported "
            "with this model.",
            "response_format",
        )


def _completion(
    req,
    body_hash: str,
    attempt: int,
    choices: list[tuple[str, str]],
    reasoning: str | None = None,
    fingerprint: str = FINGERPRINT,
) -> dict:
    prompt_tokens = messages_tokens([message_text(m) for m in req.messages])
    completion_tokens = sum(text.estimate_tokens(content) for content, _ in choices)
    return {
        "id": "chatcmpl-sim" + text.digest(body_hash, attempt)[:24],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": f"{req.model} (simulated)",
        "system_fingerprint": fingerprint,
        "choices": [
            {
                "index": i,
                "message": {
                    "role": "assistant",
                    "content": content,
                    "refusal": None,
                    **({"reasoning_content": reasoning} if reasoning else {}),
                },
                "logprobs": None,
                "finish_reason": finish,
            }
            for i, (content, finish) in enumerate(choices)
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


# Replies of HTTP 200 that are no chat completion: (content type, body) by fault kind.
NOT_COMPLETIONS = {
    "html": (
        "text/html; charset=utf-8",
        b"<!DOCTYPE html><html><head><title>Sign in</title></head>"
        b"<body><h1>Sign in to continue</h1><form method=post><input name=password>"
        b"</form></body></html>",
    ),
    "not_completion": ("application/json", b'{"status": "ok", "detail": "gateway ready"}'),
    "empty": ("application/json", b""),
    "plain_text": ("text/plain; charset=utf-8", b"OK"),
}

MODEL_OBJECT = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "concord"}
ROUTES = {
    ("GET", "/healthz"): Handler._health,
    ("GET", "/models"): Handler._models,
    ("POST", "/chat/completions"): Handler._chat,
    ("GET", "/_sim/config"): Handler._get_config,
    ("POST", "/_sim/config"): Handler._set_config,
    ("GET", "/_sim/stats"): Handler._stats,
    ("POST", "/_sim/reset"): Handler._reset,
}
