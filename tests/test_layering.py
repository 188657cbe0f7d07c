"""The layers of the code, read from its imports (every import: at the top, in functions, for
type hints): `tapaco.core` is the floor both programs share and imports nothing above it;
`opusparcus` takes only `tapaco.core` of tapaco; no modules import each other in a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
PACKAGES = ("tapaco", "opusparcus")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PROJECT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for package in PACKAGES
            for path in sorted((PROJECT / package).rglob("*.py"))}


def _imported(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The project modules `path` (module `name`) imports: `from a.b import c` names a.b.c where
    that is a module, else a.b."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                         for alias in node.names)
    return {module for module in found if module in modules}


@pytest.fixture(scope="module")
def imports() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(path, name, modules) for name, path in modules.items()}


def _crossings(imports: dict[str, set[str]], below: str, allowed: str) -> list[str]:
    return sorted(f"{module} imports {imported}" for module, targets in imports.items()
                  if module == below or module.startswith(below + ".")
                  for imported in targets
                  if imported.split(".")[0] == "tapaco"
                  and not (imported == allowed or imported.startswith(allowed + ".")))


def test_the_shared_core_imports_nothing_above_it(imports):
    assert _crossings(imports, "tapaco.core", "tapaco.core") == []


def test_opusparcus_takes_only_the_shared_core_of_tapaco(imports):
    assert _crossings(imports, "opusparcus", "tapaco.core") == []


def _circles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []

    def visit(module: str) -> None:
        index[module] = lowest[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(imports[module]):
            if imported not in index:
                visit(imported)
                lowest[module] = min(lowest[module], lowest[imported])
            elif imported in on_stack:
                lowest[module] = min(lowest[module], index[imported])
        if lowest[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return circles


def test_no_modules_import_each_other_in_a_circle(imports):
    assert _circles(imports) == []


def test_the_checks_see_a_crossing_and_a_circle():
    imports = {"tapaco.core.a": {"tapaco.graph"}, "tapaco.graph": {"tapaco.core.a"},
               "opusparcus.x": {"tapaco.core.a", "tapaco.marks"}, "tapaco.marks": set()}
    assert _crossings(imports, "tapaco.core", "tapaco.core") == [
        "tapaco.core.a imports tapaco.graph"]
    assert _crossings(imports, "opusparcus", "tapaco.core") == [
        "opusparcus.x imports tapaco.marks"]
    assert _circles(imports) == [["tapaco.core.a", "tapaco.graph"]]
