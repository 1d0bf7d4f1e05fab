"""Former home of the single-agent view, kept so that old imports work.

:class:`SingleAgentEnv` is :class:`checkers_env.gym_env.SingleAgentEnv` (the
same class): the learner against an opponent given as an agent spec, an
agent or a callable, registered with Gymnasium as ``checkers/<variant>-v0``.
"""

from __future__ import annotations

from .gym_env import Opponent, SingleAgentEnv

__all__ = ["SingleAgentEnv", "Opponent"]
