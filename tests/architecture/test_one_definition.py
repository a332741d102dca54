"""Concepts every reading shares have one definition: which judge runs count (finished
judge runs, judging.models.runs.finished_judge_runs) and the experts' majority
(annotation.consensus). This test names any module that spells either out again."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("annotation", "judging", "leaderboard", "guides")
HOME = ROOT / "judging" / "models" / "runs.py"


def _keyword_filters_on_finished(tree: ast.AST) -> list[int]:
    """Lines of calls that filter on a run's status being FINISHED by keyword (status=...
    or ...__status=... with JudgeRun.Status.FINISHED)."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg and keyword.arg.endswith("status"):
                text = ast.unparse(keyword.value)
                if text.endswith("Status.FINISHED") and "JudgeRun" in text:
                    lines.append(node.lineno)
    return lines


def test_finished_judge_runs_are_defined_once():
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if path == HOME or "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [
                f"{path.relative_to(ROOT)}:{line}" for line in _keyword_filters_on_finished(tree)
            ]
    # Runs of any kind, finished (the latest run of a given kind), are a different question.
    allowed = {
        "judging/selectors/runs.py",
        "judging/services/claims.py",
        "judging/views/saturation.py",
        "judging/services/judgments_import.py",
        "judging/interop/inspect_import.py",
    }
    found = [place for place in found if place.split(":")[0] not in allowed]
    assert not found, (
        "filter with JudgeRun.objects.finished() or finished_judge_runs():\n" + "\n".join(found)
    )


def test_the_majority_is_decided_in_one_place():
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if path.name == "consensus.py" or "migrations" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            # A majority worked out by hand compares hits with half the votes.
            if "* 2 > " in text and "hits" in text:
                found.append(str(path.relative_to(ROOT)))
    assert not found, "decide majorities with annotation.consensus:\n" + "\n".join(found)


VOTES_HOME = ROOT / "annotation" / "models" / "review.py"


def _current_revision_filters(tree: ast.AST) -> list[int]:
    """Lines of calls that pick a vote's current revision by hand (revision=F(...))."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for keyword in node.keywords
        if keyword.arg == "revision" and "assignment__revision" in ast.unparse(keyword.value)
    ]


def test_current_votes_are_defined_once():
    """Vote.objects.current() is the one definition of the votes every count reads."""
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if path == VOTES_HOME or "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [f"{path.relative_to(ROOT)}:{n}" for n in _current_revision_filters(tree)]
    assert not found, "use Vote.objects.current():\n" + "\n".join(found)


def test_the_check_sees_current_votes_spelled_again():
    tree = ast.parse('Vote.objects.filter(revision=F("assignment__revision"))')
    assert _current_revision_filters(tree) == [1]
