"""The notebooks run top to bottom, and are stored without outputs.

Each notebook is executed in a fresh IPython kernel of the interpreter that
runs the tests, with ``CHECKERS_NOTEBOOK_SMALL=1`` so that its first cell
picks small parameters (few games, shallow searches, short timings); any
cell that raises fails the test with the cell and its traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from tests.scripts import ROOT

NOTEBOOKS = ROOT / "notebooks"
KERNEL = "checkers-env-tests"
CELL_TIMEOUT_S = 300

NOTEBOOK_NAMES = [
    "01_rules_and_variants.ipynb",
    "02_environment.ipynb",
    "03_baselines_and_arena.ipynb",
    "04_selfplay_training.ipynb",
]


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory) -> Path:
    """A kernel spec that starts this interpreter, whatever kernels the machine has installed."""
    root = tmp_path_factory.mktemp("kernels")
    spec = root / KERNEL
    spec.mkdir()
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"}))
    return root


def test_every_notebook_is_listed():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(NOTEBOOK_NAMES)


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_notebook_is_stored_without_outputs(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    assert not dirty, f"{name}: code cells {dirty} have outputs; clear them before committing"


@pytest.mark.parametrize("name", NOTEBOOK_NAMES)
def test_notebook_runs_top_to_bottom(name, kernel_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("CHECKERS_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # run folders and plots the notebooks write go here
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    manager = KernelManager(kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernel_dir)]))
    client = NotebookClient(
        nb,
        km=manager,
        timeout=CELL_TIMEOUT_S,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()
    # a cell tagged "raises-exception" would let an error through execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, [f"{e.ename}: {e.evalue}" for e in errors]
    # the executed copy is kept for a look when something renders wrongly
    nbformat.write(nb, tmp_path / f"executed-{name}")
