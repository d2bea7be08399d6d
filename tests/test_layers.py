"""Imports flow one way (memadmin/__init__.py): store <- curation <- api, review."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memadmin"
# What each app may not import: the layers above it.
FORBIDDEN = {
    "store": ("memadmin.curation", "memadmin.api", "memadmin.review", "memadmin.sources"),
    "curation": ("memadmin.api", "memadmin.review", "memadmin.sources"),
    "api": ("memadmin.review", "memadmin.sources"),
    "sources": ("memadmin.api", "memadmin.review"),
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


def module_imports(path: Path) -> set[str]:
    """The modules `path` imports when it runs (what `if TYPE_CHECKING:` imports is for
    the type checker only): `from package import module` counts as that module."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and getattr(block.test, "id", "") == "TYPE_CHECKING"
        for node in ast.walk(block)
    }
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.parametrize("package", ["curation/runs", "curation/detection", "curation/decisions"])
def test_the_modules_of_a_package_import_each_other_one_way(package):
    modules = {
        module_name(path): path
        for path in (PACKAGE / package).glob("*.py")
        if path.name != "__init__.py"
    }
    edges = {
        name: {other for other in module_imports(path) if other in modules and other != name}
        for name, path in modules.items()
    }

    def circle_from(start, seen=()):
        for other in edges[start]:
            if other in seen:
                return [*seen, other]
            found = circle_from(other, (*seen, other))
            if found:
                return found
        return None

    circles = {name: circle_from(name, (name,)) for name in modules}
    assert {name: circle for name, circle in circles.items() if circle} == {}


@pytest.mark.parametrize(
    "package",
    [
        "api",
        "curation",
        "curation/decisions",
        "curation/detection",
        "curation/runs",
        "review",
        "review/views",
        "sources",
        "sources/stores",
        "store",
    ],
)
def test_no_module_is_over_600_lines(package):
    long = {
        path.name: count
        for path in (PACKAGE / package).glob("*.py")
        if (count := len(path.read_text().splitlines())) > 600
    }

    assert long == {}
