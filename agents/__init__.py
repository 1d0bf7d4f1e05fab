"""Players: the agent protocol, the random and minimax baselines, and the spec registry.

``make_agent("minimax:4", variant="russian", seed=1)`` builds any agent a
command line can name; see :mod:`agents.base`.
"""

from __future__ import annotations

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
