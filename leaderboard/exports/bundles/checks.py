"""The outcome of checking a bundle: named checks, each passed or failed, and the problems
that failed them, each naming the file it was found in (no Django here)."""

import math
from dataclasses import dataclass, field

TOLERANCE = 1e-9

# The checks, in the order they run and are reported.
FILES = "files"  # every file against the manifest's SHA-256
SIGNATURE = "signature"  # the manifest's Ed25519 signature, with the key given
READABLE = "readable"  # the bundle's own files can be read as their format says
GATE_EVALUATIONS = "gate_evaluations"  # the board rests on evaluations that are all there
SETTINGS_FINGERPRINT = "settings_fingerprint"  # the judge's settings hash to its fingerprint
JUDGE_IDENTITY = "judge_identity"  # one judge (name, number, model) everywhere it is named
RUBRIC_TEXT = "rubric_text"  # the rubrics hash to the digests the evaluations recorded
JUDGE_CALLS = "judge_calls"  # the requests hash as recorded; the raw replies give the verdicts
BOARD_SCORES = "board_scores"  # the board's scores recomputed from its verdicts
CORRECTED_SCORES = "corrected_scores"  # the corrected board recomputed from verdicts and votes
THRESHOLD_FLOOR = "threshold_floor"  # no evaluation's threshold is below the 75% floor
GATE_POLICY = "gate_policy"  # the evaluations' rule and threshold are the policy's
AGREEMENT = "agreement"  # the report's numbers recomputed from votes and verdicts
BREAKDOWNS = "breakdowns"  # every per-group and per-rater breakdown recomputed
RATERS_COMPLETE = "raters_complete"  # every item has its round's raters on every criterion
SEQUENTIAL = "sequential"  # the sequential block recomputed in hand-out order
GATE_HISTORY = "gate_history"  # the evaluated round's tallies in the gate's history
SAMPLE = "sample"  # the sample and hand-out order re-derived from the frame and the seed
GATE_DECISION = "gate_decision"  # pass or fail recomputed under the recorded rule
GUIDANCE = "guidance"  # the guidance the experts read hashes to the manifest's digests
CALIBRATION = "calibration"  # each rater's calibration agreement and pass recomputed

ORDER = (
    FILES,
    SIGNATURE,
    READABLE,
    GATE_EVALUATIONS,
    SETTINGS_FINGERPRINT,
    JUDGE_IDENTITY,
    RUBRIC_TEXT,
    JUDGE_CALLS,
    BOARD_SCORES,
    CORRECTED_SCORES,
    THRESHOLD_FLOOR,
    GATE_POLICY,
    AGREEMENT,
    BREAKDOWNS,
    RATERS_COMPLETE,
    SAMPLE,
    SEQUENTIAL,
    GATE_HISTORY,
    GATE_DECISION,
    GUIDANCE,
    CALIBRATION,
)

PASS, FAIL, SKIPPED = "pass", "fail", "skipped"


@dataclass(frozen=True)
class Problem:
    file: str
    message: str
    check: str = FILES


@dataclass
class Verification:
    checked: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    ran: set[str] = field(default_factory=set)
    skipped: dict[str, str] = field(default_factory=dict)  # check: why it did not run
    bundle_sha256: str | None = None  # the manifest's hash of its file list, to cite

    @property
    def ok(self) -> bool:
        return not self.problems

    def ran_check(self, name: str, what: str = "") -> None:
        """Record that check `name` ran (and, if given, what it looked at)."""
        self.ran.add(name)
        if what:
            self.checked.append(what)

    def fail(self, check: str, file: str, message: str) -> None:
        self.ran.add(check)
        self.problems.append(Problem(file, message, check))

    def skip(self, check: str, why: str) -> None:
        self.skipped[check] = why

    def status(self, name: str) -> str | None:
        if any(p.check == name for p in self.problems):
            return FAIL
        if name in self.ran:
            return PASS
        return SKIPPED if name in self.skipped else None

    def failed(self) -> set[str]:
        return {p.check for p in self.problems}

    def as_dict(self) -> dict:
        checks = []
        for name in ORDER:
            status = self.status(name)
            if status is None:
                continue
            entry = {"name": name, "result": status}
            if status == SKIPPED:
                entry["reason"] = self.skipped[name]
            else:
                entry["problems"] = sum(1 for p in self.problems if p.check == name)
            checks.append(entry)
        return {
            "ok": self.ok,
            "bundle_sha256": self.bundle_sha256,
            "checks": checks,
            "checked": self.checked,
            "problems": [
                {"check": p.check, "file": p.file, "message": p.message} for p in self.problems
            ],
        }


def same(a, b) -> bool:
    """Two numbers equal within TOLERANCE, or both missing."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    try:
        return math.isclose(float(a), float(b), rel_tol=0.0, abs_tol=TOLERANCE)
    except (TypeError, ValueError):
        return False


def same_tree(a, b) -> bool:
    """Two JSON values equal, numbers within TOLERANCE."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_tree(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same_tree(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return same(a, b)
    return a == b
