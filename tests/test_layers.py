"""The layers of shared/DESIGN.md stay one-way: each package imports only from the
layers above it (checked on every import statement, lazy ones included)."""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

# package (path) -> third-party or project modules it must never import
FORBIDDEN = {
    "checkers_env/core": (
        "torch",
        "pettingzoo",
        "gymnasium",
        "pygame",
        "PIL",
        "ray",
        "matplotlib",
        "agents",
        "train",
        "play",
        "checkers_env.render",
        "checkers_env.aec",
        "checkers_env.vector",
        "checkers_env.encoding",
        "checkers_env.observation",
        "checkers_env.wrappers",
    ),
    "checkers_env/render": (
        "torch",
        "pettingzoo",
        "gymnasium",
        "ray",
        "agents",
        "train",
        "play",
        "checkers_env.aec",
        "checkers_env.vector",
        "checkers_env.wrappers",
    ),
    "checkers_env": ("torch", "ray", "agents", "train", "play"),
    "agents": ("train", "play", "ray"),
    "train": ("play",),
}

# The core reaches the SVG drawing lazily from Board._repr_svg_, as python-chess does.
ALLOWED = {
    ("checkers_env/core/board.py", "checkers_env.render.svg"),
    ("checkers_env/core/board.py", "checkers_env.render.svg.board_to_svg"),
}

# An env-layer adapter imports its library, and is the only module of its layer that does.
ADAPTERS = {
    "checkers_env/rllib.py": ("ray",),
}


def _imports(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.append(module)
            names.extend(f"{module}.{alias.name}" for alias in node.names)
    return names


CASES = [(folder, path) for folder in FORBIDDEN for path in sorted((ROOT / folder).glob("*.py"))]


@pytest.mark.parametrize(("folder", "path"), CASES, ids=lambda x: str(x).replace(str(ROOT) + "/", ""))
def test_layers_are_one_way(folder, path):
    rel = str(path.relative_to(ROOT))
    bad = sorted(
        {
            name
            for name in _imports(path)
            for banned in FORBIDDEN[folder]
            if (name == banned or name.startswith(banned + "."))
            and (rel, name) not in ALLOWED
            and banned not in ADAPTERS.get(rel, ())
        }
    )
    assert not bad, f"{rel} imports {bad}, which its layer may not (shared/DESIGN.md, Layers)"
