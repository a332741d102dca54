"""An OpenAI-compatible simulator: the default LLM provider in development and in tests.

Standard library only (no Django), so it starts in a fraction of a second anywhere:

    python -m judging.simulator --host 127.0.0.1 --port 8765 [--latency-ms 250 ...]

or in-process: `with start_simulator(latency_ms=50) as sim: OpenAI(base_url=sim.base_url)`.

Endpoints
    POST /v1/chat/completions   a standard `chat.completion` object; `model` is
                                "<requested model> (simulated)", `system_fingerprint` is
                                "concord-simulator", usage is estimated (1 token per 2 CJK
                                characters, per 4 other characters). No streaming.
    GET  /v1/models             one model, `concord-sim`
    GET  /healthz               {"status": "ok"} (never needs the API key)
    GET|POST /_sim/config       read / change settings (partial JSON body, see Settings)
    GET  /_sim/stats            requests, retries, connections, faults by kind, statuses,
                                reply kinds, in-flight and max in-flight
    POST /_sim/reset            zero the statistics and the per-request attempt counters
(The paths also answer without the /v1 prefix. Admin endpoints need no key: keep the
simulator on loopback.)

Prompt convention for judge requests
    1. `response_format: {"type": "json_schema", "json_schema": {"schema": ...}}`: the reply
       validates against the schema (a subset of JSON Schema, see `schema.py`). The verdicts
       array is the top-level `verdicts` property (else the first top-level array of objects
       with a boolean); its length is minItems == maxItems, else the count from the prompt
       (below), clamped to minItems/maxItems. Each item's boolean (`hit`) is the criterion's
       verdict; string fields whose name says reasoning/explanation/... justify it.
    2. Without a schema, a line `CRITERIA_COUNT: N` anywhere in the messages (the last one
       wins) makes the reply the plain JSON text
       `{"verdicts": [{"reasoning": "...", "hit": true}, ...N items...]}`.
    3. Without either, a numbered criteria list (`1. ...`, `2)` ..., `[3] ...`) counts as
       the criteria when the request asks for JSON (`json_object`) or the prompt mentions
       "verdicts"; the list after a line mentioning criteria/rubric/标准 is preferred, else
       the longest list. Its texts are quoted in the reasoning.
    Otherwise the request is a generation request: three canned empathetic sentences, in
    Chinese when the last user message is mostly CJK, else in English.
    Verdicts are deterministic: hit(i) = hash(model, messages, seed, i) < hit_rate (0.5).
    A drifting judge (drift.py): from completion `drift_after` on, hits are drawn at
    `drift_hit_rate` and the fingerprint becomes "concord-simulator-drifted".
    A block of worked examples (`<examples version="N">` ... `</examples>`) is left out of
    the hash; with learns_from_examples = p > 0, a verdict on a criterion the examples name
    that contradicts their verdict is corrected with probability p (see learning.py).

Faults and latency (settings at start, `/_sim/config` while running, headers per request)
    latency_ms ± jitter_ms uniform (the first latency_after requests are answered at once:
    an endpoint that slows down mid-run); rate_429 (with Retry-After: retry_after seconds),
    rate_500, rate_timeout (sleeps timeout_sleep_s, then answers normally), rate_malformed
    (message content cut in half: invalid JSON), rate_wrong_count (one verdict too many or
    too few; a no-op for generation requests); replies of HTTP 200 that are no chat
    completion: rate_html (an HTML sign-in page), rate_not_completion (a JSON object without
    choices), rate_empty (an empty application/json body), rate_plain_text ("OK" as
    text/plain). The k-th identical request body draws from
    hash(body, k), so retries get fresh draws and runs reproduce from a reset server.
    Headers: X-Sim-Fault: 429|500|timeout|malformed|wrong_count|html|not_completion|empty|
    plain_text|none, X-Sim-Latency-Ms,
    X-Sim-Jitter-Ms, X-Sim-Retry-After, X-Sim-Timeout-Sleep-S, X-Sim-Hit-Rate,
    X-Sim-Learns-From-Examples. Replies carry X-Sim-Attempt and X-Sim-Fault (the fault
    applied, or "none").
    With an api_key set, /v1 requests need `Authorization: Bearer <key>` (else 401).
    `max_tokens`/`max_completion_tokens` cut longer content (finish_reason "length").
"""

from .handle import SimulatorHandle, start_simulator
from .server import SimulatorServer
from .settings import FAULT_KINDS, Settings, SettingsError

__all__ = [
    "FAULT_KINDS",
    "Settings",
    "SettingsError",
    "SimulatorHandle",
    "SimulatorServer",
    "start_simulator",
]
