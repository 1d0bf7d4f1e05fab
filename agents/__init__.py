"""Players: the agent protocol, the random and minimax baselines, and the spec registry.

``make_agent("minimax:4", variant="russian", seed=1)`` builds any agent a
command line can name; see :mod:`agents.base`.
"""

from __future__ import annotations

import os

# torch's OpenMP threads spin while waiting for work; on a machine where other
# processes (self-play workers, other jobs) keep cores busy, spinning threads
# made a training step 2.3 times slower than one thread (1.25 times when passive).
# OpenMP reads the variable when torch loads, so it is set before any import of it.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from .base import Agent, AgentSpecError, agent_kinds, make_agent, register_agent_kind, register_agent_loader
from .minimax import MinimaxAgent, SearchInfo
from .random_agent import RandomAgent

__all__ = [
    "Agent",
    "AgentSpecError",
    "MinimaxAgent",
    "RandomAgent",
    "SearchInfo",
    "agent_kinds",
    "make_agent",
    "register_agent_kind",
    "register_agent_loader",
]
