"""The import graph of Lumin's Python code, read from the source (``ast``), with imports inside
functions counted like any other (a lazy import hides a circle, it does not remove it):

- no module imports itself through others (no circles);
- ``engine/`` imports nothing of the project outside ``engine/``, and ``protocol/`` nothing
  outside ``protocol/`` (docs/architecture.md, "Layers and what may import what");
- the client modules (``clients/``, but for the browser client's fixture writers) import
  nothing of ``server/`` or ``engine/``, and the client library (``clients/sdk/`` with
  ``protocol/``) nothing outside the standard library but its wire libraries;
- the modules of the client's commands (``lumin bot``, ``lumin admin``) import ``engine/`` and
  ``server/`` only inside functions, so they load in a client-only install;
- every name a module's ``__all__`` lists is defined (or imported) there, and every public name
  another module imports from it is listed.

Imports under ``if TYPE_CHECKING:`` are for the type checker alone and are left out.
"""

from __future__ import annotations

import ast
import graphlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "server", "clients", "lumin", "benchmarks", "scripts", "tests")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            found[_module_name(path)] = path
    return found


SOURCES = _sources()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[tuple[str, list[str]]]:
    """Every import in ``tree``: ``(module, names)``, at any depth, except under
    ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]))
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module, [alias.name for alias in node.names]
        yield from _imports(node)


def _targets(module: str, names: list[str]) -> set[str]:
    """The project's modules an import statement loads: ``from a.b import c`` is the module
    ``a.b.c`` when that is a module, else ``a.b``; outside the project, nothing."""
    found = {f"{module}.{name}" for name in names if f"{module}.{name}" in SOURCES}
    if (len(found) < len(names) or not names) and module in SOURCES:
        found.add(module)
    return found


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in SOURCES.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        edges: set[str] = set()
        for module, names in _imports(tree):
            edges |= _targets(module, names)
        edges.discard(name)
        graph[name] = edges
    return graph


GRAPH = _graph()


def test_the_import_graph_has_no_circles() -> None:
    try:
        tuple(graphlib.TopologicalSorter(GRAPH).static_order())
    except graphlib.CycleError as error:
        circle = " -> ".join(error.args[1])
        pytest.fail(f"import circle (imports inside functions count): {circle}")


@pytest.mark.parametrize("layer", ["engine", "protocol"])
def test_a_pure_layer_imports_only_itself(layer: str) -> None:
    outside = {
        (module, target)
        for module, targets in GRAPH.items()
        if module == layer or module.startswith(f"{layer}.")
        for target in targets
        if target.split(".")[0] != layer
    }
    assert outside == set(), f"{layer}/ imports the project outside itself"


def test_the_client_modules_import_neither_server_nor_engine() -> None:
    # clients/web's Python files write the browser client's test fixtures from the engine.
    clients = [m for m in GRAPH if m.startswith("clients.") and not m.startswith("clients.web.")]
    assert {"clients.sdk", "clients.sdk.client", "clients.load"} <= set(clients)
    wrong = {
        (module, target)
        for module in clients
        for target in GRAPH[module]
        if target.split(".")[0] in ("server", "engine")
    }
    assert wrong == set()


#: What the client library may import from outside the project and the standard library.
WIRE_LIBRARIES = frozenset({"attrs", "cattrs", "msgpack", "tenacity", "websockets"})


def test_the_client_library_needs_only_its_wire_libraries() -> None:
    library = [m for m in SOURCES if m.split(".")[:2] == ["clients", "sdk"] or m == "protocol"]
    library += [m for m in SOURCES if m.startswith("protocol.")]
    outside: set[tuple[str, str]] = set()
    for name in library:
        for module, _ in _imports(ast.parse(SOURCES[name].read_text())):
            top = module.split(".")[0]
            if top in ("clients", "protocol") and (module in SOURCES or top == "protocol"):
                assert top == "protocol" or module.startswith("clients.sdk"), (name, module)
            elif top not in sys.stdlib_module_names and top not in WIRE_LIBRARIES:
                outside.add((name, module))
    assert outside == set()


def _module_level_imports(tree: ast.AST) -> Iterator[str]:
    """The modules imported outside any function (what importing the module runs)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
        yield from _module_level_imports(node)


CLIENT_COMMANDS = ["lumin.cli", "lumin.admin", "lumin.errors", "lumin.netbot", "lumin.urls"]


@pytest.mark.parametrize("module", [*CLIENT_COMMANDS, "lumin.server_option"])
def test_the_client_commands_load_without_engine_or_server(module: str) -> None:
    tree = ast.parse(SOURCES[module].read_text())
    wrong = {m for m in _module_level_imports(tree) if m.split(".")[0] in ("engine", "server")}
    assert wrong == set()
    loaded = {m for m in _module_level_imports(tree) if m in SOURCES and m.startswith("lumin.")}
    # Their own helpers: the server URL (lumin.urls, lumin.server_option), the admin commands
    # and their errors, each of which imports only the standard library, attrs and click.
    assert loaded <= {"lumin.admin", "lumin.errors", "lumin.server_option", "lumin.urls"}, loaded


def _defined(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return names


def _all_of(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            assert isinstance(node, ast.Assign)
            return [ast.literal_eval(item) for item in node.value.elts]  # type: ignore[attr-defined]
    return None


def test_every_name_in_an_all_list_exists() -> None:
    stale: dict[str, list[str]] = {}
    for name, path in SOURCES.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        listed = _all_of(tree)
        if listed is None:
            continue
        missing = [item for item in listed if item not in _defined(tree)]
        if missing:
            stale[name] = missing
    assert stale == {}


def test_every_public_name_imported_from_a_module_is_in_its_all() -> None:
    exported = {
        name: listed
        for name, path in SOURCES.items()
        if (listed := _all_of(ast.parse(path.read_text(), filename=str(path)))) is not None
    }
    unlisted: set[tuple[str, str, str]] = set()
    for name, path in SOURCES.items():
        for module, names in _imports(ast.parse(path.read_text(), filename=str(path))):
            for item in names:
                if (
                    module in exported
                    and not item.startswith("_")
                    and item not in exported[module]
                    and f"{module}.{item}" not in SOURCES
                ):
                    unlisted.add((name, module, item))
    assert unlisted == set(), "(importer, module, name) missing from the module's __all__"


def test_the_graph_sees_imports_inside_functions() -> None:
    """The reader itself: ``lumin serve`` imports the server inside its function only."""
    assert "server.app" in GRAPH["lumin.serve"]
    assert "engine.core" in GRAPH["server.room"]
