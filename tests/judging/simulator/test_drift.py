"""The simulator's drift switch: from a given completion on, the same request gets verdicts
at another hit rate and another system fingerprint, as a silently swapped model would."""

import json

from .conftest import http, judge_format, judge_messages


def _ask(client, response: str):
    completion = client.chat.completions.create(
        model="m",
        messages=judge_messages(response, [f"c{i}" for i in range(20)]),
        response_format=judge_format(20),
        seed=3,
    )
    hits = [v["hit"] for v in json.loads(completion.choices[0].message.content)["verdicts"]]
    return hits, completion.system_fingerprint


def test_the_judge_drifts_from_the_given_completion_on(client, sim):
    sim.configure(drift_after=2, drift_hit_rate=1.0)
    first, before = _ask(client, "A kind answer.")
    assert _ask(client, "A kind answer.") == (first, before)
    assert before == "concord-simulator" and not all(first)
    after, fingerprint = _ask(client, "A kind answer.")
    assert all(after) and fingerprint == "concord-simulator-drifted"
    # A reset starts the count again: the judge is back to its old self.
    sim.reset()
    assert _ask(client, "A kind answer.") == (first, before)


def test_switching_between_runs_and_bad_settings(client, sim):
    hits, _ = _ask(client, "Another answer.")
    sim.configure(drift_after=0, drift_hit_rate=0.0)
    drifted, fingerprint = _ask(client, "Another answer.")
    assert not any(drifted) and any(hits) and fingerprint.endswith("drifted")
    status, _headers, body = http("POST", sim.root_url + "/_sim/config", {"drift_hit_rate": 2})
    assert status == 400 and "drift_hit_rate" in json.dumps(body)
