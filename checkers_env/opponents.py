"""Opponents of the single-agent views: who plays the side the learner does not.

An opponent is given to :class:`~checkers_env.gym_env.SingleAgentEnv` and
:class:`~checkers_env.gym_vector.GymVectorEnv` as one of:

* ``"random"`` (or None): uniform among the legal legs, seeded by the env's
  ``reset(seed=)``; the vector env plays it inside its compiled step.
* an agent spec text (``"minimax:4"``, ``"runs/x/best.pt"``, anything
  :func:`agents.make_agent` reads): resolved to an agent, which plays whole
  moves (:meth:`~agents.base.Agent.select_move`, or batched
  :meth:`~agents.base.Agent.select_moves` in the vector env).
* an object with ``select_moves`` / ``select_move`` (an :class:`agents.base.Agent`
  already built): played the same way.
* any other callable: plays leg by leg on observations. The single env calls
  it with the AEC observation dict (``{"observation": planes, "action_mask":
  mask}``) and wants one action; the vector env calls it once per round with
  ``(observations[k], action_masks[k])`` of the ``k`` games waiting on it and
  wants ``k`` actions.

This module is the one place of the env layer that reaches the agents layer,
lazily, to turn a spec text into an agent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .core.variants import Rules

__all__ = ["ResolvedOpponent", "resolve_opponent"]


@dataclass(frozen=True)
class ResolvedOpponent:
    """An opponent sorted by how it is played."""

    kind: str
    """``"random"``, ``"agent"`` (whole moves from boards) or ``"callable"`` (legs from observations)."""
    player: Any = None
    """The agent or the callable (None for random)."""
    name: str = "random"
    """A short name for reprs and reports."""


def resolve_opponent(opponent: str | Callable | Any | None, rules: Rules, seed: int | None = None) -> ResolvedOpponent:
    """Sort ``opponent`` (see the module docstring); build an agent from a spec text for ``rules``.

    Raises:
        ValueError: ``opponent`` is none of the accepted forms, or a spec that
            names no agent (:class:`agents.AgentSpecError`, a ``ValueError``).
    """
    if opponent is None or (isinstance(opponent, str) and opponent.strip().lower() == "random"):
        return ResolvedOpponent("random")
    if isinstance(opponent, str):
        from agents import make_agent  # the env layer's one reach into agents: a spec names an agent

        agent = make_agent(opponent, variant=rules, seed=seed)
        return ResolvedOpponent("agent", agent, opponent.strip())
    if callable(getattr(opponent, "select_moves", None)) or callable(getattr(opponent, "select_move", None)):
        return ResolvedOpponent("agent", opponent, str(getattr(opponent, "name", type(opponent).__name__)))
    if callable(opponent):
        return ResolvedOpponent("callable", opponent, getattr(opponent, "__name__", type(opponent).__name__))
    raise ValueError(
        "opponent must be 'random', an agent spec text such as 'minimax:4', an agent (with select_move), "
        f"or a callable that returns actions; got {opponent!r}"
    )
