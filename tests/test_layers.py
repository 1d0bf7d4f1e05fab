"""The layers of docs/DESIGN.md hold: every import of every module, lazy ones included, is checked
against the layer table read from that page; no import circle; no private name crosses a module;
the agent protocol is the ground floor; only ``VectorEnv`` leaves ``checkers_env.vector``."""

from __future__ import annotations

import ast
import pathlib
import re
import sys
from functools import cache

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DESIGN = ROOT / "docs" / "DESIGN.md"
PACKAGES = ("checkers_env", "agents", "train", "play")


def _section(name: str) -> str:
    text = DESIGN.read_text()
    found = re.search(rf"<!-- {name}: .*?-->(.*?)<!-- end {name} -->", text, re.S)
    assert found, f"docs/DESIGN.md has no '{name}' section for the layers test"
    return found.group(1)


@cache
def layer_table() -> dict[str, tuple[set[str], set[str]]]:
    """package -> (project packages it may import, libraries it may import), from docs/DESIGN.md."""
    table = {}
    for line in _section("layers").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        package = cells[0].strip("`")
        project = {p.strip().strip("`") for p in cells[1].split(",") if p.strip()}
        libraries = {p.strip() for p in cells[2].split(",") if p.strip()}
        table[package] = (project, libraries)
    assert {"checkers_env.core", "checkers_env", "agents", "train", "play"} <= set(table)
    return table


@cache
def allowed_reaches() -> set[tuple[str, str]]:
    """(file, project package) pairs allowed to cross a layer lazily, from docs/DESIGN.md."""
    pairs = set()
    for file, target in re.findall(r"^- `([^`]+)` -> `([^`]+)`", _section("allowed"), re.M):
        pairs.add((file, target))
    return pairs


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _files() -> list[pathlib.Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: pathlib.Path) -> list[tuple[str, list[str], int]]:
    """(module imported, names imported from it, line) for every import statement, however deep."""
    tree = ast.parse(path.read_text(), filename=str(path))
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, [], node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, [alias.name for alias in node.names], node.lineno))
    return found


def _layer_of(module: str) -> str:
    """The most specific package of the layer table that holds ``module``."""
    best = ""
    for package in layer_table():
        if (module == package or module.startswith(package + ".")) and len(package) > len(best):
            best = package
    return best


def _project_module(name: str) -> bool:
    return name.split(".")[0] in PACKAGES


def _resolve(target: str, names: list[str]) -> list[str]:
    """The project modules an import refers to (``from pkg import mod`` names the submodule)."""
    out = [target]
    for name in names:
        candidate = f"{target}.{name}"
        path = ROOT / pathlib.Path(*candidate.split("."))
        if path.with_suffix(".py").exists() or (path / "__init__.py").exists():
            out.append(candidate)
    return out


CASES = [pytest.param(p, id=str(p.relative_to(ROOT))) for p in _files()]


@pytest.mark.parametrize("path", CASES)
def test_imports_follow_the_layer_table(path):
    rel = str(path.relative_to(ROOT))
    own = _layer_of(_module_name(path))
    project, libraries = layer_table()[own]
    bad = []
    for target, _, line in _imports(path):
        if not target or target == "__future__":
            continue
        top = target.split(".")[0]
        if _project_module(target):
            layer = _layer_of(target)
            ok = layer == own or any(layer == p or layer.startswith(p + ".") for p in project)
            # a package may use its sub-layers' modules only through the table (core is below checkers_env)
            if ok or any((rel, t) in allowed_reaches() for t in (target, layer, top)):
                continue
            bad.append(f"line {line}: {target} (layer {layer})")
        elif top not in sys.stdlib_module_names and top not in libraries:
            bad.append(f"line {line}: library {top}")
    assert not bad, f"{rel} (layer {own}) imports what docs/DESIGN.md's layer table does not allow: {bad}"


def test_the_allowed_reaches_exist():
    for file, target in allowed_reaches():
        path = ROOT / file
        if not path.exists():
            continue  # an adapter not written yet
        targets = {t for t, _, _ in _imports(path)}
        assert any(t == target or t.startswith(target + ".") for t in targets), (file, target)


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in _files()}
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        rel = str(path.relative_to(ROOT))
        for target, names, _ in _imports(path):
            if not _project_module(target):
                continue
            if any((rel, t) in allowed_reaches() for t in (target, _layer_of(target), target.split(".")[0])):
                continue
            for dep in _resolve(target, names):
                # importing a package runs its __init__: an edge to the package module
                while dep and dep not in modules:
                    dep = dep.rpartition(".")[0]
                if dep and dep != module and not module.startswith(dep + "."):
                    edges[module].add(dep)
    return edges


def test_no_import_circle():
    edges = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(edges[m]):
            if state.get(n) == 1:
                cycles.append(stack[stack.index(n) :] + [n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)
    assert not cycles, "import circles: " + "; ".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("path", CASES)
def test_no_private_name_crosses_a_module(path):
    tree = ast.parse(path.read_text())
    module_aliases = set()
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or _project_module(node.module or "")):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    bad.append(f"line {node.lineno}: from {node.module or '.'} import {alias.name}")
                module_aliases.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _project_module(alias.name):
                    parts = alias.name.split(".")
                    if any(p.startswith("_") and not p.startswith("__") for p in parts):
                        bad.append(f"line {node.lineno}: import {alias.name}")
                    module_aliases.add(alias.asname or parts[0])
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in module_aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            bad.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    assert not bad, f"{path.relative_to(ROOT)} reaches private names of other modules: {bad}"


def test_the_agent_protocol_is_the_ground_floor():
    targets = [t for t, _, _ in _imports(ROOT / "agents" / "base.py")]
    assert not [t for t in targets if t == "agents" or t.startswith("agents.")], targets


def test_only_vector_env_leaves_the_vector_module():
    bad = []
    for path in _files():
        if _module_name(path).startswith("checkers_env"):
            continue
        for target, names, line in _imports(path):
            if target == "checkers_env.vector" and set(names) - {"VectorEnv", "VectorStep"}:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {names}")
            if target == "checkers_env" and "vector" in names:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports the vector module")
    assert not bad, bad


def test_the_rules_core_names_no_library_it_may_not_use():
    # the grep a reviewer would run: the core imports no RL, torch, drawing or Ray library
    banned = re.compile(r"^\s*(import|from)\s+(torch|pettingzoo|gymnasium|pygame|ray|PIL)\b", re.M)
    for path in (ROOT / "checkers_env" / "core").rglob("*.py"):
        assert not banned.search(path.read_text()), path


def test_each_env_library_stays_in_its_adapters():
    # docs/DESIGN.md names the env-layer modules that may import each optional library
    homes = {}
    for line in _section("adapters").splitlines():
        if line.startswith("- "):
            library, _, modules = line[2:].partition(":")
            homes[library.strip()] = {m.strip() for m in modules.split(",")}
    assert homes, "docs/DESIGN.md's adapters section is empty"
    bad = []
    for path in sorted((ROOT / "checkers_env").rglob("*.py")):
        for target, _, line in _imports(path):
            top = target.split(".")[0]
            if top in homes and path.name not in homes[top]:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {top}")
    assert not bad, bad
