"""Layering: the core never pulls in drawing code; render imports only the core, and
its optional libraries lazily."""

from __future__ import annotations

import ast
import doctest
import importlib
import pathlib
import subprocess
import sys

import pytest

import checkers_env.render

RENDER_DIR = pathlib.Path(checkers_env.render.__file__).parent
DRAWING = ("checkers_env.render", "pygame", "PIL")


def loaded_after(statement: str) -> list[str]:
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return out.split()


@pytest.mark.parametrize("statement", ["import checkers_env.core", "import checkers_env"])
def test_core_imports_no_drawing_library(statement):
    modules = loaded_after(statement)
    assert "checkers_env.core" in modules
    assert not [m for m in modules if m.startswith(DRAWING)]


def test_text_and_svg_need_neither_pillow_nor_pygame():
    modules = loaded_after(
        "from checkers_env.render import board_to_text, board_to_svg; "
        "import checkers_env.render.image, checkers_env.render.window; "
        "from checkers_env.core import Board; b = Board(); board_to_text(b); board_to_svg(b)"
    )
    assert not [m for m in modules if m.startswith(("pygame", "PIL"))]


ALLOWED_TOP_LEVEL = {
    "__future__",
    "collections.abc",
    "dataclasses",
    "importlib",
    "os",
    "xml.etree.ElementTree",
    "numpy",
}


@pytest.mark.parametrize("path", sorted(RENDER_DIR.glob("*.py")), ids=lambda p: p.name)
def test_render_modules_import_only_the_core_at_top_level(path):
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 1:  # a sibling render module
                continue
            if node.level == 2:
                assert node.module is not None and node.module.split(".")[0] == "core", ast.unparse(node)
                continue
            names = [node.module]
        else:
            continue
        for name in names:
            assert name in ALLOWED_TOP_LEVEL, f"{path.name} imports {name} at top level"


@pytest.mark.parametrize("module", ["__init__", "text", "svg", "layout", "image", "window"])
def test_docstring_examples(module):
    name = "checkers_env.render" if module == "__init__" else f"checkers_env.render.{module}"
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
