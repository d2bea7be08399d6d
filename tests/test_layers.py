"""Imports flow one way (memadmin/__init__.py): store <- curation <- api, review."""

import ast
import re
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


@pytest.mark.parametrize(
    "package",
    sorted(
        str(folder.relative_to(PACKAGE))
        for folder in [PACKAGE, *PACKAGE.rglob("*")]
        # Every folder of modules, a namespace package's too (detection/reading has no
        # __init__.py).
        if folder.is_dir() and any(folder.glob("*.py")) and folder.name != "migrations"
    ),
)
def test_no_module_is_over_600_lines(package):
    long = {
        path.name: count
        for path in (PACKAGE / package).glob("*.py")
        if (count := len(path.read_text().splitlines())) > 600
    }

    assert long == {}


# --- The house as a whole (issue 50): no circle anywhere, views thin, nothing of the build
# in bench/.

ROOT = PACKAGE.parent
MODULES = {
    module_name(path): path for path in PACKAGE.rglob("*.py") if "migrations" not in path.parts
}


def runtime_imports(path: Path) -> set[str]:
    """The modules of memadmin `path` imports when it runs, wherever the import stands (a
    function's own import closes a circle as surely as a module's): `from package import
    module` is that module, `from module import name` the module."""
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
            found.update(alias.name for alias in node.names if alias.name in MODULES)
        elif isinstance(node, ast.ImportFrom) and node.module in MODULES:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in MODULES else node.module)
    return found


def test_no_two_modules_of_memadmin_import_each_other_in_a_circle():
    edges = {name: runtime_imports(path) - {name} for name, path in MODULES.items()}
    finished: set[str] = set()

    def circle_from(start, trail):
        for other in sorted(edges[start]):
            if other in trail:
                return [*trail[trail.index(other) :], other]
            if other not in finished:
                found = circle_from(other, [*trail, other])
                if found:
                    return found
        finished.add(start)
        return None

    circles = [found for name in sorted(edges) if (found := circle_from(name, [name]))]
    assert circles == []


VIEWS = PACKAGE / "review" / "views"
VIEW_MODULES = sorted(path for path in VIEWS.glob("*.py") if path.name != "__init__.py")


@pytest.mark.parametrize("path", VIEW_MODULES, ids=lambda path: path.name)
def test_a_view_imports_no_other_view_module_but_the_helpers_and_nothing_of_detection(path):
    imported = {
        module
        for module in imported_modules(path)
        if module.startswith(("memadmin.review.views", "memadmin.curation.detection"))
    }

    assert imported <= {"memadmin.review.views.helpers"}


# What reads a request field by field rather than through a form.
RAW_READ = re.compile(
    r"request\.(?:POST|GET|FILES)(?:\.get\(|\[|\.getlist\(|\.copy\(|\.lists\(|\.items\()"
)


def test_the_views_read_their_input_through_forms():
    raw_reads = {
        f"{path.name}:{number}": line.strip()
        for path in VIEW_MODULES
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if RAW_READ.search(line)
    }

    assert len(raw_reads) <= 10, raw_reads


def long_functions(folder: Path) -> dict[str, int]:
    found = {}
    for path in folder.rglob("*.py"):
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > 80:
                    found[f"{path.relative_to(ROOT)}:{node.name}"] = length
    return found


@pytest.mark.parametrize("folder", ["memadmin", "bench"])
def test_no_function_is_over_80_lines(folder):
    assert long_functions(ROOT / folder) == {}


@pytest.mark.parametrize("folder", ["memadmin", "tests"])
def test_nothing_of_the_app_or_the_tests_imports_bench(folder):
    importing = {
        str(path.relative_to(ROOT))
        for path in (ROOT / folder).rglob("*.py")
        if any(
            module == "bench" or module.startswith("bench.") for module in imported_modules(path)
        )
    }

    assert importing == set()
