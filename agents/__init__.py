"""Players: the agent protocol and spec registry, random, minimax, the learned players, checkpoints.

``make_agent("minimax:4", variant="russian", seed=1)`` builds any agent a
command line can name; see :mod:`agents.base`. Importing this package loads
no torch: the learned players (:mod:`agents.learned`), their networks and
checkpoints (:mod:`agents.checkpoint`) are imported when first used.
"""

from __future__ import annotations

from .base import (
    Agent,
    AgentSpecError,
    agent_kinds,
    make_agent,
    parse_options,
    register_agent_kind,
    register_agent_loader,
)
from .minimax import MinimaxAgent, SearchInfo
from .random_agent import RandomAgent

# checkpoints need torch: their loader is named here and imported on first use
register_agent_loader(
    ".pt",
    "agents.checkpoint:load_agent_spec",
    "PATH.pt[:sims=N,time=SECONDS,root=puct|gumbel,c_puct=C,fpu=F,reuse=1|0,mix=W,minimax=M,ptemp=T,dtype=float32|bfloat16|auto]"
    " (a trained checkpoint)",
)
# sb3-contrib MaskablePPO models (the Gymnasium views' learners): imported on first use too
register_agent_loader(".zip", "agents.sb3_policy:load_agent_spec", "PATH.zip[:sample] (a MaskablePPO model)")

__all__ = [
    "Agent",
    "AgentSpecError",
    "MinimaxAgent",
    "RandomAgent",
    "SearchInfo",
    "agent_kinds",
    "make_agent",
    "parse_options",
    "register_agent_kind",
    "register_agent_loader",
]
