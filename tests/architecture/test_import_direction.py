"""Apps import downward only: core (the ground floor) <- config and accounts <- annotation <-
judging <- leaderboard <- guides <- bench. An import upward (annotation reading leaderboard,
say) would give a concept a second home; this test reads every module's imports and names
each one that points up."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LEVEL = {
    "core": -1,
    "config": 0,
    "accounts": 0,
    "annotation": 1,
    "judging": 2,
    "leaderboard": 3,
    "guides": 4,
    "bench": 5,
}


def _imported(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _upward_imports() -> list[str]:
    found = []
    for app, level in LEVEL.items():
        for path in sorted((ROOT / app).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for name in sorted(_imported(tree)):
                top = name.split(".")[0]
                if top in LEVEL and LEVEL[top] > level:
                    found.append(f"{path.relative_to(ROOT)} imports {name}")
    return found


def test_no_app_imports_an_app_above_it():
    assert _upward_imports() == []


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    # The check itself can fail: a module of annotation importing leaderboard is reported.
    fake = tmp_path / "annotation"
    fake.mkdir()
    (fake / "leak.py").write_text("from leaderboard.report.wording import reason_text\n")
    for app in LEVEL:
        (tmp_path / app).mkdir(exist_ok=True)
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert _upward_imports() == ["annotation/leak.py imports leaderboard.report.wording"]


def test_no_command_imports_another_commands_module():
    """Commands share helpers through their app's management/cli.py (or a private `_` module),
    never by importing another command."""
    found = []
    for app in ("annotation", "judging", "leaderboard"):
        commands = ROOT / app / "management" / "commands"
        for path in sorted(commands.glob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for name in sorted(_imported(tree)):
                parts = name.split(".")
                command = parts[3] if parts[1:3] == ["management", "commands"] else ""
                if len(parts) > 3 and command and not command.startswith("_"):
                    found.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not found, "\n".join(found)


def test_selectors_import_no_service():
    """Selectors read; services write. A selector importing a service writes behind a read."""
    found = []
    for app in ("annotation", "judging", "leaderboard"):
        for path in sorted((ROOT / app).rglob("selectors/*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [
                f"{path.relative_to(ROOT)} imports {name}"
                for name in sorted(_imported(tree))
                if ".services" in name
            ]
    assert not found, "\n".join(found)


WRITES = {"save", "create", "bulk_create", "bulk_update", "get_or_create", "update_or_create"}
WRITES |= {"delete", "select_for_update"}


def _selector_writes(root: Path) -> list[str]:
    found = []
    for app in ("annotation", "judging", "leaderboard"):
        for path in sorted((root / app).rglob("selectors*/*.py")) + sorted(
            (root / app).rglob("selectors.py")
        ):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in WRITES
                ):
                    found.append(f"{path.relative_to(root)}:{node.lineno} calls {node.func.attr}")
    return found


def test_no_selector_writes():
    """Selectors read; a write behind a read (a cache, a name drawn on first sight) belongs
    in a service that says so."""
    assert _selector_writes(ROOT) == []


def test_the_check_sees_a_selector_that_writes(tmp_path):
    folder = tmp_path / "annotation" / "selectors"
    folder.mkdir(parents=True)
    (folder / "leak.py").write_text("def read(x):\n    x.save()\n")
    assert _selector_writes(tmp_path) == ["annotation/selectors/leak.py:2 calls save"]
