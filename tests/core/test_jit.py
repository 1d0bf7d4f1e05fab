"""The kernel decorator: no reference counting, and caches keyed on every source file they depend on."""

from __future__ import annotations

import os

import numpy as np

from checkers_env.core import Board, _jit, get_rules
from checkers_env.core import movegen as mg


def test_kernels_run_without_numba_runtime():
    assert mg.generate_moves.targetoptions.get("_nrt") is False
    moves, scratch = mg.new_move_buffer(), mg.new_scratch()
    params = mg.make_params(get_rules("american"))
    state = Board("american").state
    n = mg.generate_moves(state[0], state[1], state[2], state[3], params, moves, scratch)
    assert n == 7 and np.all(moves[:n, mg.M_LEGS] == 1)


def test_kernel_caches_are_keyed_on_every_source_file(monkeypatch):
    """Editing vector.py must invalidate the cached MCTS kernels that inline its step_game."""
    from agents import mcts

    locator = mcts._select_leaves._cache._impl._locator
    assert type(locator).__name__.startswith("Project")
    before = locator.get_source_stamp()
    real = _jit._file_digest
    edited = os.path.join("checkers_env", "vector.py")

    def digest(path, mtime, size):
        return b"edited" if path.endswith(edited) else real(path, mtime, size)

    monkeypatch.setattr(_jit, "_file_digest", digest)
    assert locator.get_source_stamp() != before
    # the core's own kernels depend on checkers_env only, not on agents
    monkeypatch.setattr(_jit, "_file_digest", real)
    core_stamp = _jit.project_source_stamp(mg.__file__)
    monkeypatch.setattr(_jit, "_file_digest", lambda p, m, s: b"x" if f"{os.sep}agents{os.sep}" in p else real(p, m, s))
    assert _jit.project_source_stamp(mg.__file__) == core_stamp


def test_only_the_project_packages_get_the_project_stamp(tmp_path):
    import numba

    assert _jit._package_dir(mg.__file__).endswith("checkers_env")
    assert _jit._package_dir(numba.__file__) is None
    assert _jit._package_dir(str(tmp_path / "elsewhere.py")) is None
