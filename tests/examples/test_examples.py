"""Every script of examples/ runs with its tiny budget (--smoke), as a user would run it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.scripts import ROOT

EXAMPLES = {
    "maskable_ppo_selfplay.py": ("sb3_contrib", "torch"),
    "cleanrl_ppo.py": ("torch", "gymnasium"),
    "openspiel_mcts.py": ("pyspiel",),
    "pettingzoo_loop.py": ("pettingzoo",),
}


@pytest.mark.parametrize("script", sorted(EXAMPLES))
def test_example_smoke_run(script, tmp_path):
    for module in EXAMPLES[script]:
        pytest.importorskip(module)
    args = [sys.executable, str(ROOT / "examples" / script), "--smoke"]
    if script == "maskable_ppo_selfplay.py":
        args += ["--out", str(tmp_path / "run")]
    env = dict(os.environ, PYTHONPATH=str(ROOT), SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    out = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    if script == "maskable_ppo_selfplay.py":
        assert (tmp_path / "run" / "model.zip").is_file() and (tmp_path / "run" / "arena.json").is_file()
