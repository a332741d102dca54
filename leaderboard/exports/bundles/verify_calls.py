"""The judge's calls re-derived from the bundle alone (no Django): each recorded request
hashes, with its run's model and sampling settings, to the request hash the run recorded;
it holds the response and the rubric's criteria the bundle carries; and each raw reply,
read as the run read it, gives the verdicts the bundle reports."""

import json

from judging.prompting import JudgeRequest, request_hash
from judging.replies import ReplyInvalid, parse_reply
from leaderboard.exports.bundles import layout
from leaderboard.exports.bundles.checks import JUDGE_CALLS, Verification

# Bundles of this format version on carry the response texts and the calls, or say why not.
LEAN_SINCE_VERSION = 3


def _sampling(settings: dict) -> dict:
    """The settings a call's hash covers, as the run's lanes build them."""
    return {
        "base_url": settings.get("base_url", ""),
        "temperature": settings.get("temperature", 0.0),
        "seed": settings.get("seed"),
        "max_output_tokens": settings.get("max_output_tokens"),
    }


def _lean(files: dict[str, bytes], manifest: dict, result: Verification) -> bool:
    """A bundle without the judge's calls or the response texts: skipped when its manifest
    says it left them out (`bundle --lean`), failed otherwise. Bundles made before the calls
    were carried (format 2 and older, without the files) are skipped as such."""
    missing = [name for name in layout.LEAN_FILES if name not in files]
    if not missing:
        return False
    if manifest.get("lean") is True and layout.LEAN_LEFT_OUT in (manifest.get("left_out") or []):
        result.skip(JUDGE_CALLS, "the bundle is lean: " + layout.LEAN_LEFT_OUT)
    elif manifest.get("version", 0) < LEAN_SINCE_VERSION:
        result.skip(JUDGE_CALLS, "the bundle was made before the judge's calls were carried")
    else:
        for name in missing:
            result.fail(
                JUDGE_CALLS,
                name,
                "missing, and the manifest does not say it was left out (a lean bundle)",
            )
    return True


def check_calls(
    files: dict[str, bytes], rubrics: dict, result: Verification, manifest: dict
) -> None:
    if _lean(files, manifest, result):
        return
    where = layout.JUDGE_CALLS
    runs = {run["id"]: run["settings"] for run in json.loads(files[layout.RUNS])["runs"]}
    texts = {
        (row["question_id"], row["system"]): row["text"]
        for row in layout.read_jsonl(files.get(layout.RESPONSES, b""))
    }
    verdicts = {
        (row["run"], row["question_id"], row["system"]): row["hits"]
        for name in files
        if name == layout.VERDICTS or name.endswith("/" + layout.EVALUATION_VERDICTS)
        for row in layout.read_jsonl(files[name])
        if row["status"] == "done"
    }
    calls = list(layout.read_jsonl(files[where]))
    for call in calls:
        who = f"{call['question_id']} ({call['system']}, run {call['run']})"
        settings = runs[call["run"]]
        request = JudgeRequest(call["messages"], call["response_format"], 0)
        digest = request_hash(
            model=settings["model"], request=request, settings=_sampling(settings)
        )
        if digest != call["request_hash"]:
            result.fail(
                JUDGE_CALLS,
                where,
                f"{who}: the request does not hash to the one the run recorded: its messages, "
                "format, model or sampling settings were changed",
            )
        sent = "\n".join(str(m.get("content", "")) for m in call["messages"])
        rubric = rubrics[layout.rubric_key(call["question_id"], call["rubric_version"])]
        missing = [c["content"] for c in rubric["rubric"] if c["content"] not in sent]
        if texts.get((call["question_id"], call["system"]), "") not in sent or missing:
            result.fail(
                JUDGE_CALLS,
                where,
                f"{who}: the judge was sent another response or other criteria than the "
                f"bundle's ({len(missing)} criteria not in the request)",
            )
        try:
            reply = parse_reply(
                call["raw_reply"],
                expected=len(rubric["rubric"]),
                numbers=call.get("criterion_numbers"),
            )
        except ReplyInvalid as exc:
            result.fail(JUDGE_CALLS, where, f"{who}: the raw reply cannot be read ({exc})")
            continue
        hits = [int(v.hit) for v in reply.verdicts]
        reported = verdicts.get((call["run"], call["question_id"], call["system"]))
        if reported is not None and reported != hits:
            result.fail(
                JUDGE_CALLS,
                where,
                f"{who}: the raw reply gives the verdicts {hits}, the bundle reports {reported}",
            )
    result.ran_check(JUDGE_CALLS, f"{len(calls)} judge calls: requests and replies re-read")
