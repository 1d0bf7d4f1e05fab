"""The agent protocol every player follows, and the agent-spec registry.

An agent chooses a move for a :class:`~checkers_env.core.Board`
(:meth:`Agent.select_move`); agents that work on the environment's
observations also choose an action from an observation and its legal-action
mask (:meth:`Agent.select_action`). Each agent owns a seeded
``numpy.random.Generator`` (``agent.rng``) used for every random choice it
makes, so a game between seeded agents replays exactly.

Agents are named on command lines by *specs*::

    random                 uniform among the legal moves
    minimax:4              alpha-beta to depth 4 (plies)
    minimax:8:0.5          depth 8 or 0.5 seconds a move, whichever ends first
    minimax:nodes=20000    20,000 nodes a move (keys: depth, time, nodes)
    runs/x/best.pt         a checkpoint, loaded by agents.checkpoint.load_agent

:func:`make_agent` turns a spec into an agent. New kinds plug in with
:func:`register_agent_kind` (``name:args`` specs) or
:func:`register_agent_loader` (file paths by suffix).
"""

from __future__ import annotations

import abc
import importlib
import os
from collections.abc import Callable

import numpy as np

from checkers_env.core import Board, Move

__all__ = [
    "Agent",
    "AgentSpecError",
    "make_agent",
    "register_agent_kind",
    "register_agent_loader",
    "agent_kinds",
]


class AgentSpecError(ValueError):
    """An agent spec that names no known agent, has bad arguments, or whose checkpoint cannot be loaded."""


class Agent(abc.ABC):
    """A player. Subclasses implement :meth:`select_move`.

    ``seed`` seeds the agent's own generator ``self.rng`` (``None``: fresh
    entropy). :meth:`reset` starts a new game: it reseeds the generator and
    clears whatever the agent remembers between moves.
    """

    name: str = "agent"
    """Short human-readable name used in reports (the spec, where known)."""

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Forget the current game and reseed (``seed=None`` keeps the constructor's seed)."""
        if seed is not None:
            self.seed = seed
        self.rng = np.random.default_rng(self.seed)

    @abc.abstractmethod
    def select_move(self, board: Board) -> Move:
        """A legal move for the side to move on ``board`` (which must not be over). ``board`` is left unchanged."""

    def select_action(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """An action index whose ``mask`` entry is non-zero, for the environment's action encoding.

        Agents that reason about positions rather than observations do not
        implement it and raise ``TypeError``; play them through
        :meth:`select_move`.
        """
        raise TypeError(f"{type(self).__name__} chooses moves from a Board; call select_move(board)")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, seed={self.seed!r})"


# A kind factory gets (argument text after "name:", or "" if none; variant; seed).
KindFactory = Callable[[str, str, "int | None"], Agent]
# A loader gets (path, variant, seed).
PathLoader = Callable[[str, str, "int | None"], Agent]

_KINDS: dict[str, tuple[KindFactory, str]] = {}
_LOADERS: dict[str, tuple[PathLoader, str]] = {}


def register_agent_kind(name: str, factory: KindFactory, usage: str) -> None:
    """Make specs ``name`` and ``name:ARGS`` build agents with ``factory(args, variant, seed)``.

    ``usage`` is the one-line help shown when a spec is wrong. The factory
    raises :class:`AgentSpecError` for bad arguments.
    """
    _KINDS[name.lower()] = (factory, usage)


def register_agent_loader(suffix: str, loader: PathLoader, usage: str) -> None:
    """Make specs that are file paths ending in ``suffix`` load with ``loader(path, variant, seed)``."""
    _LOADERS[suffix.lower()] = (loader, usage)


def agent_kinds() -> list[str]:
    """Usage lines of every registered spec form."""
    return [usage for _, usage in _KINDS.values()] + [usage for _, usage in _LOADERS.values()]


def make_agent(spec: str, variant: str = "american", seed: int | None = None) -> Agent:
    """Build the agent a spec names (see the module docstring) for ``variant``.

    Raises :class:`AgentSpecError` with the known forms when the spec is not
    understood, and when a checkpoint file is missing or cannot be loaded.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec must be a non-empty string, got {spec!r}; {_known()}")
    text = spec.strip()
    lowered = text.lower()
    for suffix, (loader, _) in _LOADERS.items():
        if lowered.endswith(suffix):
            agent = loader(text, variant, seed)
            agent.name = getattr(agent, "name", None) or text
            return agent
    name, _, args = text.partition(":")
    entry = _KINDS.get(name.lower())
    if entry is None:
        raise AgentSpecError(f"unknown agent spec {spec!r}; {_known()}")
    agent = entry[0](args, variant, seed)
    agent.name = text
    return agent


def _known() -> str:
    return "known forms: " + "; ".join(agent_kinds())


def _load_checkpoint(path: str, variant: str, seed: int | None) -> Agent:
    """Loader for ``*.pt`` specs: ``agents.checkpoint.load_agent(path, variant)``."""
    if not os.path.isfile(path):
        raise AgentSpecError(f"checkpoint {path!r} not found (agent specs ending in .pt name a checkpoint file)")
    try:
        module = importlib.import_module("agents.checkpoint")
    except ImportError as exc:
        raise AgentSpecError(
            f"cannot load checkpoint {path!r}: the learned-agent loader agents.checkpoint is not available ({exc})"
        ) from None
    try:
        agent = module.load_agent(path, variant)
    except AgentSpecError:
        raise
    except Exception as exc:  # a corrupt or mismatched file: report it as bad input
        raise AgentSpecError(f"cannot load checkpoint {path!r} for variant {variant!r}: {exc}") from exc
    if seed is not None and hasattr(agent, "reset"):
        agent.reset(seed)
    return agent


register_agent_loader(".pt", _load_checkpoint, "PATH.pt (a trained checkpoint)")
