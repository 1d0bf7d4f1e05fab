"""``import checkers_env`` registers its ids with PettingZoo and Gymnasium, and imports nothing heavy to do it."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHECK = """
import sys
import checkers_env
heavy = [m for m in ("torch", "pygame", "agents", "checkers_env.aec", "checkers_env.gym_env",
                     "checkers_env.gym_vector", "pyspiel") if m in sys.modules]
assert not heavy, heavy
import gymnasium, pettingzoo
ids = [f"checkers/{v}-v0" for v in checkers_env.variant_names()]
assert all(i in gymnasium.registry for i in ids) and all(i in pettingzoo.aec_registry for i in ids)
aec = pettingzoo.make("aec", "checkers/russian-v0", max_moves=30)
assert aec.unwrapped.rules.name == "russian" and aec.unwrapped.max_moves == 30
gym = gymnasium.make("checkers/american-v0", forced_capture=False, agent="player_1")
assert gym.unwrapped.rules.forced_capture is False and gym.unwrapped.agent == "player_1"
venv = gymnasium.make_vec("checkers/international-v0", num_envs=3, vectorization_mode="vector_entry_point")
assert isinstance(venv, gymnasium.vector.VectorEnv) and venv.num_envs == 3
assert venv.single_action_space.n == 1800
print("ok")
"""


def test_a_bare_import_registers_every_id_in_a_fresh_interpreter():
    pytest.importorskip("gymnasium")
    pytest.importorskip("pettingzoo")
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]


def test_importing_without_the_libraries_registers_nothing_and_fails_nowhere():
    code = (
        "import sys; sys.modules['gymnasium'] = None; sys.modules['pettingzoo'] = None\n"
        "import checkers_env\n"
        "from checkers_env.registration import registered_ids\n"
        "assert registered_ids == {'pettingzoo': [], 'gymnasium': []}, registered_ids\n"
        "print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


def test_registering_again_changes_nothing():
    pytest.importorskip("gymnasium")
    import checkers_env
    from checkers_env.aec import registered_ids

    assert checkers_env.register_envs()["pettingzoo"] == registered_ids
    assert "checkers/international-v0" in registered_ids and len(registered_ids) == 8
