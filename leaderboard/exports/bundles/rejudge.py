"""Re-judging from a bundle: each recorded judge call (judge_calls.jsonl) sent again, as it
was sent, to an endpoint and model of the lab's choosing, and the verdicts compared unit by
unit (one criterion of one response) with the recorded ones. The same settings on the same
endpoint give the same verdicts; another model shows how far it agrees."""

import io
import json
import zipfile
from pathlib import Path

from judging.llm_client import CallFailed, call_chat, client_new
from judging.prompting import JudgeRequest
from judging.replies import ReplyInvalid, parse_reply
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import FILES, JUDGE_CALLS
from leaderboard.exports.bundles.verify import verify_bundle

SHOWN_DIFFERENCES = 20


class RejudgeRefused(ValueError):
    """The bundle cannot be re-judged; the message says why."""


def _hits(content: str | None, call: dict) -> list[int]:
    expected = len(call.get("criterion_numbers") or [])
    reply = parse_reply(content, expected=expected, numbers=call.get("criterion_numbers"))
    return [int(v.hit) for v in reply.verdicts]


def rejudge(
    path: str | Path, *, base_url: str, model: str = "", api_key_env: str = "", timeout=120.0
) -> dict:
    """Send every recorded call again and compare; `model` empty: each run's own model."""
    data = Path(path).read_bytes()
    checked = verify_bundle(io.BytesIO(data))
    broken = checked.failed() & {FILES, JUDGE_CALLS}
    if broken:
        raise RejudgeRefused(
            f"the bundle fails {', '.join(sorted(broken))}: its recorded calls cannot be trusted"
        )
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        if layout.JUDGE_CALLS not in archive.namelist():
            raise RejudgeRefused(
                "the bundle holds no judge calls: it is lean (written with --lean) or older "
                "than the calls; re-judge from the full bundle"
            )
        calls = list(layout.read_jsonl(archive.read(layout.JUDGE_CALLS)))
        runs = {r["id"]: r["settings"] for r in json.loads(archive.read(layout.RUNS))["runs"]}
    if not calls:
        raise RejudgeRefused("the bundle holds no judge call (its verdicts were imported)")
    client = client_new(base_url=base_url, api_key_env=api_key_env, timeout=timeout)
    units = agreeing = failed = 0
    differences = []
    for call in calls:
        settings = runs[call["run"]]
        recorded = _hits(call["raw_reply"], call)
        try:
            result = call_chat(
                client,
                model=model or settings["model"],
                request=JudgeRequest(call["messages"], call["response_format"], len(recorded)),
                temperature=float(settings.get("temperature", 0.0)),
                seed=settings.get("seed"),
                max_tokens=int(settings.get("max_output_tokens", 4096)),
            )
            again = _hits(result.content, call)
        except (CallFailed, ReplyInvalid) as exc:
            failed += 1
            differences.append(
                {"question_id": call["question_id"], "system": call["system"], "failed": str(exc)}
            )
            continue
        for number, (before, now) in enumerate(zip(recorded, again, strict=True), start=1):
            units += 1
            agreeing += before == now
            if before != now:
                differences.append(
                    {
                        "question_id": call["question_id"],
                        "system": call["system"],
                        "criterion": number,
                        "recorded": before,
                        "rejudged": now,
                    }
                )
    return {
        "calls": len(calls),
        "failed_calls": failed,
        "units": units,
        "agreeing": agreeing,
        "agreement": agreeing / units if units else None,
        "differences": differences[:SHOWN_DIFFERENCES],
        "differences_total": len(differences),
    }
