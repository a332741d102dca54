"""A permission has one name in Python: core.permissions.Perm. A module that spells a
permission's string out again ("annotation.manage_review") could check a permission nobody
holds after a rename, and nothing would say so; this test names every such spelling.
Migrations keep the strings they were written with; templates read `perms.app.codename`."""

import ast
from pathlib import Path

from django.apps import apps

from core.permissions import Perm

ROOT = Path(__file__).resolve().parents[2]
APPS = ("core", "config", "accounts", "annotation", "judging", "leaderboard", "guides", "bench")


def permission_names() -> set[str]:
    """Every permission of the project's models, "app_label.codename": the default ones
    (add, change, delete, view) and those each model declares."""
    names = set()
    for model in apps.get_models():
        meta = model._meta
        if meta.app_label not in APPS:
            continue
        names.update(
            f"{meta.app_label}.{action}_{meta.model_name}" for action in meta.default_permissions
        )
        names.update(f"{meta.app_label}.{codename}" for codename, _label in meta.permissions)
    return names


def _spelled_out(names: set[str]) -> list[str]:
    home = ROOT / "core" / "permissions.py"
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if path == home or "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno} {node.value}"
                for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and node.value in names
            ]
    return found


def test_no_module_spells_a_permission_out():
    found = _spelled_out(permission_names())
    assert not found, "name permissions with core.permissions.Perm:\n" + "\n".join(found)


def test_the_check_sees_a_permission_spelled_out(tmp_path, monkeypatch):
    # The check itself can fail: a view naming its permission by string is reported, the
    # same string in core/permissions.py and in a migration is not.
    for app in APPS:
        (tmp_path / app / "migrations").mkdir(parents=True)
    (tmp_path / "annotation" / "views.py").write_text(
        '@permission_needed("annotation.manage_review")\ndef rounds(request): ...\n'
    )
    (tmp_path / "core" / "permissions.py").write_text('MANAGE = "annotation.manage_review"\n')
    (tmp_path / "annotation" / "migrations" / "0002_roles.py").write_text(
        'PERMS = ["annotation.manage_review"]\n'
    )
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    assert _spelled_out(permission_names()) == ["annotation/views.py:1 annotation.manage_review"]


def test_every_perm_is_a_permission_of_the_models_and_every_declared_one_has_a_perm():
    # A Perm that names no permission would be refused to everyone; a permission a model
    # declares with no Perm could only be checked by spelling it out.
    names = permission_names()
    assert {perm.value for perm in Perm} <= names
    declared = {
        f"{model._meta.app_label}.{codename}"
        for model in apps.get_models()
        if model._meta.app_label in APPS
        for codename, _label in model._meta.permissions
    }
    assert declared <= {perm.value for perm in Perm}
