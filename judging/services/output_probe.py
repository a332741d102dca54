"""Whether a judge version's endpoint takes structured output, asked once.

Before a run of a version that wants structured output makes its calls, one probe call asks
the endpoint for a `json_schema` reply. Its answer is stored with the version
(`OutputProbe`): accepted, the runs ask for structured output; refused, they ask for plain
JSON (the prompt describes the reply) and every reply is still checked against the schema
(judging/replies.py). Later runs of the version reuse the answer. A probe that gets no
answer on the matter (the endpoint unreachable, busy or failing) is no verdict: nothing is
stored, the run asks as configured, and the next run probes again."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from judging import judge_settings
from judging.llm_client import CallFailed, MissingApiKey, api_key, call_chat, client_new
from judging.models import JudgeVersion, OutputProbe
from judging.prompting import SCHEMA_NAME, JudgeRequest, verdict_schema
from judging.text_measure import messages_tokens

# Refusals of a request's content; anything else (401, 404, 429, 5xx) says nothing about
# structured output.
_REFUSAL_STATUSES = (400, 422)
_MESSAGE_LIMIT = 300
_PROBE_MAX_TOKENS = 512
# Key-shaped words: the usual prefixes (sk-, gsk_, hf_, xai-, AIza...) and any long run of
# letters and digits, which a provider's error text has no other reason to hold.
_KEY_LIKE = re.compile(
    r"\b(?:sk|pk|rk|key|gsk|hf|xai)[-_][A-Za-z0-9_\-]{6,}|\bAIza[A-Za-z0-9_\-]{10,}"
    r"|Bearer\s+\S+|\b[A-Za-z0-9_\-]{32,}\b",
    re.I,
)

JSON_SCHEMA = OutputProbe.Mode.JSON_SCHEMA.value
PLAIN_JSON = OutputProbe.Mode.PLAIN_JSON.value


@dataclass(frozen=True)
class OutputDecision:
    """How a run asks for its replies, and why: the stored probe, or (`unchecked`) the
    reason a probe made now gave no answer."""

    mode: str
    probe: OutputProbe | None = None
    probed_now: bool = False
    unchecked: str = ""
    # The probe's calls made now, and their tokens (estimated from the request, and said
    # so, where the endpoint reported none): part of the run's cost.
    usage: dict | None = None


def request_tokens(messages: list[dict]) -> int:
    """The prompt tokens of a request, estimated from its text (judging.text_measure)."""
    return messages_tokens([str(m.get("content", "")) for m in messages])


def probe_request(*, structured: bool = True) -> JudgeRequest:
    """A small judge request with the real reply schema (one criterion); without
    `structured`, the same request asking for no particular format."""
    messages = [
        {
            "role": "system",
            "content": "You check replies against criteria. Answer in the JSON format asked.",
        },
        {
            "role": "user",
            "content": "Criterion 1: the reply greets the user.\nReply: Hello!\n"
            "Give the analysis and one verdict.",
        },
    ]
    response_format = {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": verdict_schema(1)},
    }
    return JudgeRequest(messages, response_format if structured else None, 1)


def latest_probe(version: JudgeVersion) -> OutputProbe | None:
    if version.pk is None:
        return None  # a version not saved yet (a dry run's) was never probed
    return (
        OutputProbe.objects.filter(
            judge_version=version, base_url=version.base_url, model=version.model
        )
        .order_by("-probed", "-pk")
        .first()
    )


def output_mode_decide(*, version: JudgeVersion, probe: bool = True) -> OutputDecision:
    """The mode a run of `version` uses, probing the endpoint first when the version wants
    structured output and no answer of its endpoint is stored. One call at most; none
    without `probe` (an estimate): the stored answer, or the version's setting."""
    if version.source != judge_settings.LLM or not version.structured_output:
        return OutputDecision(mode=PLAIN_JSON)
    stored = latest_probe(version)
    if stored is not None:
        return OutputDecision(mode=stored.mode, probe=stored)
    if not probe:
        return OutputDecision(mode=JSON_SCHEMA)
    config = version.config

    usage = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "estimated_tokens": 0}

    def ask(structured: bool) -> None:
        client = client_new(
            base_url=version.base_url,
            api_key_env=config.api_key_env,
            timeout=float(config.timeout_seconds),
        )
        request = probe_request(structured=structured)
        usage["calls"] += 1
        try:
            result = call_chat(
                client,
                model=version.model,
                request=request,
                temperature=version.temperature,
                seed=version.seed,
                max_tokens=min(version.max_output_tokens, _PROBE_MAX_TOKENS),
            )
        except CallFailed as exc:
            if exc.outcome == "timeout":  # the endpoint may have read it: estimated
                estimate = request_tokens(request.messages)
                usage["prompt_tokens"] += estimate
                usage["estimated_tokens"] += estimate
            raise
        usage["prompt_tokens"] += result.prompt_tokens
        usage["completion_tokens"] += result.completion_tokens

    try:
        ask(structured=True)
    except CallFailed as exc:
        if not (exc.outcome == "http_error" and exc.http_status in _REFUSAL_STATUSES):
            return OutputDecision(
                mode=JSON_SCHEMA, probed_now=True, unchecked=exc.message, usage=usage
            )
        # A 400 may refuse anything (a setting, the model, the key): it is a refusal of
        # structured output only if the same request without it is answered.
        try:
            ask(structured=False)
        except CallFailed as plain:
            return OutputDecision(
                mode=JSON_SCHEMA, probed_now=True, unchecked=plain.message, usage=usage
            )
        probe = OutputProbe.objects.create(
            judge_version=version,
            base_url=version.base_url,
            model=version.model,
            finding=OutputProbe.Finding.REFUSED,
            provider_message=provider_message(exc, key_env=config.api_key_env),
            http_status=exc.http_status,
            mode=PLAIN_JSON,
        )
        return OutputDecision(mode=PLAIN_JSON, probe=probe, probed_now=True, usage=usage)
    probe = OutputProbe.objects.create(
        judge_version=version,
        base_url=version.base_url,
        model=version.model,
        finding=OutputProbe.Finding.ACCEPTED,
        mode=JSON_SCHEMA,
    )
    return OutputDecision(mode=JSON_SCHEMA, probe=probe, probed_now=True, usage=usage)


def provider_message(failure: CallFailed, *, key_env: str) -> str:
    """The provider's own message from its error body (OpenAI's `error.message`, or the
    body as text), without the key or anything like one, and trimmed."""
    text = failure.raw or ""
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            text = error["message"]
        elif isinstance(error, str):
            text = error
        elif isinstance(body.get("detail"), str):
            text = body["detail"]
    text = " ".join(text.split()) or failure.message
    try:
        key = api_key(key_env) if key_env else ""
    except MissingApiKey:  # no key to hide when none can be read
        key = ""
    if key:
        text = text.replace(key, "[key]")
    text = _KEY_LIKE.sub("[key]", text)
    if len(text) > _MESSAGE_LIMIT:
        text = text[: _MESSAGE_LIMIT - 1] + "…"
    return text


def output_settings(decision: OutputDecision) -> dict:
    """The run settings that say how its replies are asked for (the lanes read them)."""
    settings = {"output_mode": decision.mode}
    if decision.unchecked:
        settings["output_probe_unchecked"] = decision.unchecked
    if decision.usage:
        settings["probe_usage"] = decision.usage
    return settings


def structured_asked(snapshot: dict) -> bool:
    """Whether a run's calls ask for structured output: its decided mode, or for a run
    started before modes were decided, its version's setting."""
    mode = snapshot.get("output_mode")
    if mode is None:
        return bool(snapshot.get("structured_output", True))
    return mode == JSON_SCHEMA
