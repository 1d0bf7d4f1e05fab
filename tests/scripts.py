"""The repository as tests see it: its root folder, and its scripts (``benchmarks/``, ``examples/``), which are
files, not modules of a package, loaded as modules."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
"""The repository's root folder."""


def load_script(relative_path: str | os.PathLike) -> ModuleType:
    """The script at ``relative_path`` (from the repository's root) imported as a module named after its
    file; its ``if __name__ == "__main__"`` part does not run."""
    path = ROOT / relative_path
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the script {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
