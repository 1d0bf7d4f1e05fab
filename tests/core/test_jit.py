"""The kernel decorator: no reference counting, and caches keyed on every source file they depend on."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from checkers_env.core import Board, get_rules, jit
from checkers_env.core import movegen as mg


def test_kernels_run_without_numba_runtime():
    assert mg.generate_moves.targetoptions.get("_nrt") is False
    moves, scratch = mg.new_move_buffer(), mg.new_scratch()
    params = mg.make_params(get_rules("american"))
    state = Board("american").state
    n = mg.generate_moves(state[0], state[1], state[2], state[3], params, moves, scratch)
    assert n == 7 and np.all(moves[:n, mg.M_LEGS] == 1)


def test_kernel_caches_are_keyed_on_every_source_file(monkeypatch):
    """Editing the leg-level game must invalidate the cached MCTS kernels that inline its step_game."""
    from agents import mcts

    locator = mcts._select_leaves._cache._impl._locator
    assert type(locator).__name__.startswith("Project")
    before = locator.get_source_stamp()
    real = jit._file_digest
    edited = os.path.join("checkers_env", "game.py")

    def digest(path, mtime, size):
        return b"edited" if path.endswith(edited) else real(path, mtime, size)

    monkeypatch.setattr(jit, "_file_digest", digest)
    assert locator.get_source_stamp() != before
    # the core's own kernels depend on checkers_env only, not on agents
    monkeypatch.setattr(jit, "_file_digest", real)
    core_stamp = jit.project_source_stamp(mg.__file__)
    monkeypatch.setattr(jit, "_file_digest", lambda p, m, s: b"x" if f"{os.sep}agents{os.sep}" in p else real(p, m, s))
    assert jit.project_source_stamp(mg.__file__) == core_stamp


def test_only_packages_that_declare_kernels_get_the_project_stamp(tmp_path):
    import numba

    import agents.mcts  # noqa: F401  (declares kernels, so its package is noted)

    assert jit._kernel_package_dir(mg.__file__).endswith("checkers_env")
    assert jit._kernel_package_dir(agents.mcts.__file__).endswith("agents")
    assert jit._kernel_package_dir(numba.__file__) is None
    assert jit._kernel_package_dir(str(tmp_path / "elsewhere.py")) is None


def test_importing_the_core_changes_no_process_setting():
    code = (
        "import os; before = dict(os.environ); import checkers_env, checkers_env.core, agents; "
        "changed = sorted(k for k in set(before) | set(os.environ) if before.get(k) != os.environ.get(k)); "
        "print(changed)"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_THREADING_LAYER", "OMP_WAIT_POLICY")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "[]"


def test_use_workqueue_threading_respects_a_user_choice(monkeypatch):
    monkeypatch.setenv("NUMBA_THREADING_LAYER", "omp")
    jit.use_workqueue_threading()
    assert os.environ["NUMBA_THREADING_LAYER"] == "omp"
    monkeypatch.delenv("NUMBA_THREADING_LAYER")
    jit.use_workqueue_threading()
    assert os.environ["NUMBA_THREADING_LAYER"] == "workqueue"
