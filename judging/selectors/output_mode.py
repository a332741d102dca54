"""What the pages and commands say about how a run asks for its replies: the endpoint's
stored answer to the structured-output probe (services/output_probe.py)."""

from collections.abc import Iterable
from dataclasses import dataclass

from judging.models import JudgeRun, OutputProbe

REFUSED = "refused"
UNCHECKED = "unchecked"

# The sentences the commands print (pages say them through the catalog).
REFUSED_TEXT = (
    "this endpoint refused structured output; Concord asks for plain JSON and checks it "
    "against the schema"
)
UNCHECKED_TEXT = (
    "could not check whether this endpoint accepts structured output ({reason}); the run "
    "asks for it as configured and the next run checks again"
)


@dataclass(frozen=True)
class OutputNotice:
    kind: str  # REFUSED or UNCHECKED
    probe: OutputProbe | None = None
    reason: str = ""

    def text(self) -> str:
        """The notice in English, for commands and logs."""
        if self.kind == UNCHECKED:
            return UNCHECKED_TEXT.format(reason=self.reason)
        text = REFUSED_TEXT
        if self.probe is not None and self.probe.provider_message:
            text += f" (the endpoint said: {self.probe.provider_message})"
        return text


def latest_output_probes(version_ids: Iterable[int]) -> dict[int, OutputProbe]:
    """The latest probe of each version that has one, in one query."""
    latest: dict[int, OutputProbe] = {}
    for probe in OutputProbe.objects.filter(judge_version_id__in=list(version_ids)).order_by(
        "judge_version_id", "-probed", "-pk"
    ):
        latest.setdefault(probe.judge_version_id, probe)
    return latest


def run_output_notice(*, run: JudgeRun) -> OutputNotice | None:
    """A notice when the run does not ask for structured output although its version
    wants it (the endpoint refused), or when the probe got no answer; None otherwise."""
    snapshot = run.settings_snapshot
    unchecked = snapshot.get("output_probe_unchecked")
    if unchecked:
        return OutputNotice(kind=UNCHECKED, reason=unchecked)
    if snapshot.get("output_mode") == OutputProbe.Mode.PLAIN_JSON and snapshot.get(
        "structured_output", True
    ):
        probe = latest_output_probes([run.judge_version_id]).get(run.judge_version_id)
        return OutputNotice(kind=REFUSED, probe=probe)
    return None
