"""checkers_env: draughts and checkers rules for reinforcement learning.

The rules core (:mod:`checkers_env.core`) is re-exported here. The env layer
(``env``, ``raw_env``, ``VectorEnv``, ``SingleAgentEnv``, ``GymVectorEnv``
and the action encoding helpers) is imported on first use.

Importing the package registers ``checkers/<variant>-v0`` with PettingZoo
(the AEC env) and with Gymnasium (the single-agent view, and its batched
form for ``gymnasium.make_vec``), where those libraries are installed; see
:mod:`checkers_env.registration`. That reads the two registries only: no env
module, torch or pygame is imported.
"""

from __future__ import annotations

import importlib

from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all
from .registration import register_envs

register_envs()

__version__ = "0.1.0"

_LAZY = {
    "env": "checkers_env.aec",
    "raw_env": "checkers_env.aec",
    "VectorEnv": "checkers_env.vector",
    "VectorStep": "checkers_env.vector",
    "SingleAgentEnv": "checkers_env.gym_env",
    "GymVectorEnv": "checkers_env.gym_vector",
    "num_actions": "checkers_env.encoding",
    "move_to_actions": "checkers_env.encoding",
    "actions_to_move": "checkers_env.encoding",
    "text_to_actions": "checkers_env.encoding",
    "actions_to_text": "checkers_env.encoding",
}

__all__ = list(_core_all) + list(_LAZY) + ["register_envs"]


def __getattr__(name: str):
    if name in _LAZY:
        module = importlib.import_module(_LAZY[name])
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'checkers_env' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
