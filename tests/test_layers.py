"""The layers of docs/design.md hold: ``lint-imports`` keeps the contract of pyproject.toml, no
module imports another in a circle (``if TYPE_CHECKING:`` imports count), every package says
what it may import, and the design page names the packages and the order the contract does."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "emulator"
DESIGN = ROOT / "docs" / "design.md"


def _contract() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["id"] == "layers"]
    return contract


def _layer_modules(layer: str) -> list[str]:
    return [m.strip() for m in re.split(r"[|:]", layer)]


def test_lint_imports_keeps_the_layers():
    done = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout, done.stdout


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_imports_another_in_a_circle():
    sys.path.insert(0, str(ROOT))  # this checkout's code, not an installed copy
    try:
        graph = grimp.build_graph("emulator", "conftest_plugin", cache_dir=None)
    finally:
        sys.path.remove(str(ROOT))
    assert "emulator.facade.api" in graph.modules
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_circle():
    graph = grimp.ImportGraph()
    for name in ("a", "a.b", "a.c", "a.d"):
        graph.add_module(name)
    graph.add_import(importer="a.b", imported="a.c")
    graph.add_import(importer="a.c", imported="a.b")
    graph.add_import(importer="a.d", imported="a.b")
    assert _cycles(graph) == [["a.b", "a.c"]]


def _top_level() -> set[str]:
    names = set()
    for path in PACKAGE.iterdir():
        if path.is_dir() and (path / "__init__.py").exists():
            names.add(f"emulator.{path.name}")
        elif path.suffix == ".py" and path.name != "__init__.py":
            names.add(f"emulator.{path.stem}")
    return names


def test_every_module_of_the_top_level_is_in_one_layer():
    named = [m for layer in _contract()["layers"] for m in _layer_modules(layer)]
    assert len(named) == len(set(named))
    assert set(named) - {"conftest_plugin"} == _top_level()


@pytest.mark.parametrize("package", sorted(_top_level()))
def test_every_package_says_what_it_may_import(package):
    init = PACKAGE / package.split(".")[1] / "__init__.py"
    if not init.exists():
        pytest.skip("a module, not a package")
    doc = ast.get_docstring(ast.parse(init.read_text())) or ""
    assert "May import" in doc, f"{init}: say what lives here and what it may import"


def test_the_doors_the_facade_names_exist():
    from emulator.facade.doors import DOORS, door

    for ref in DOORS:
        assert callable(door(ref)), ref


def _design_layers() -> list[str]:
    text = DESIGN.read_text()
    block = re.search(r"```text layers\n(.*?)```", text, re.S)
    assert block is not None, "docs/design.md: the ```text layers block"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_design_page_names_the_contracts_order():
    assert _design_layers() == _contract()["layers"]


def test_every_package_the_design_page_names_exists():
    text = DESIGN.read_text()
    full = set(re.findall(r"\bemulator/[a-z_/]*[a-z_](?:\.py)?/?", text))
    short = set(re.findall(r"`([a-z_]+/(?:[a-z_]+/)*(?:[a-z_]+\.py)?)`", text))
    assert len(full) > 20 and len(short) > 20
    for path in full:
        assert (ROOT / path).exists(), path
    for path in short:
        assert (PACKAGE / path).exists() or (ROOT / path).exists(), path
    for module in {m for layer in _design_layers() for m in _layer_modules(layer)}:
        assert importlib.util.find_spec(module) is not None, module
