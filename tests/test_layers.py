"""Imports flow one way (memadmin/__init__.py): store <- curation <- api, review."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memadmin"
# What each app may not import: the layers above it.
FORBIDDEN = {
    "store": ("memadmin.curation", "memadmin.api", "memadmin.review"),
    "curation": ("memadmin.api", "memadmin.review"),
    "api": ("memadmin.review",),
}


def imported_modules(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("app", sorted(FORBIDDEN))
def test_an_app_imports_nothing_from_the_layers_above_it(app):
    offending = {
        f"{path.relative_to(PACKAGE)}: {module}"
        for path in (PACKAGE / app).rglob("*.py")
        for module in imported_modules(path)
        if module.startswith(FORBIDDEN[app])
    }

    assert offending == set()
