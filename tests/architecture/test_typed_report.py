"""The agreement report is read by its attributes (leaderboard.report.typed.AgreementReport):
no module subscripts a report by a name (`report["units"]`, `evidence.report.get("gate")`),
where a misspelt key would fail only when the line runs. A report kept as JSON reads
through `AgreementReport.from_json`; bundle verification alone compares JSON with JSON (the
bundle's files, and the report it recomputes as JSON)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "annotation", "config", "core", "guides", "judging", "leaderboard", "bench")
JSON_READERS = ("leaderboard/exports/bundles/verify",)


def _is_report(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id == "report") or (
        isinstance(node, ast.Attribute) and node.attr == "report"
    )


def _is_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def report_reads_by_name(source: str) -> list[int]:
    """Lines that read a report by a name: `report["..."]`, `x.report["..."]`, and their
    `.get("...")`."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        subscript = isinstance(node, ast.Subscript) and _is_report(node.value)
        get = (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and _is_report(node.func.value)
            and bool(node.args)
        )
        if (subscript and _is_name(node.slice)) or (get and _is_name(node.args[0])):
            lines.append(node.lineno)
    return lines


def _app_modules() -> list[Path]:
    return [
        path
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        if "migrations" not in path.parts
        and not str(path.relative_to(ROOT)).startswith(JSON_READERS)
    ]


def test_the_report_is_read_by_its_attributes():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _app_modules()
        for line in report_reads_by_name(path.read_text(encoding="utf-8"))
    ]
    assert not found, "read the agreement report's attributes (report.units):\n" + "\n".join(found)


def test_the_check_sees_a_report_read_by_name():
    planted = (
        "def page(evidence, report, other):\n"
        "    units = report['units']\n"
        "    gate = evidence.report.get('gate')\n"
        "    kept = report.as_json()['units']\n"
        "    return other['units'], report.units, report.gate['passed']\n"
    )
    assert report_reads_by_name(planted) == [2, 3]
    assert _app_modules(), "no module was read"
