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
    runs/x/best.pt         a checkpoint (as trained)
    runs/x/best.pt:sims=128,time=0.2
                           with options: 128 simulations, at most 0.2 s a move
    runs/x/best.pt:time=0.2,dtype=auto
                           the network in bfloat16 where the CPU computes it natively
    runs/x/best.pt:c_puct=2.5,fpu=0
                           the search's exploration constant and first-play urgency

:func:`make_agent` turns a spec into an agent. This module is the ground
floor of the package: it knows no kind of agent. Each kind registers itself
with :func:`register_agent_kind` (``name:args`` specs) or
:func:`register_agent_loader` (file paths by suffix, with options after a
colon); a loader may be given as ``"module:function"`` text, imported on
first use, so that naming it costs nothing (checkpoints need torch).

Agents that can play many games at once (a network searching all of them in
one batch) override :meth:`Agent.select_moves`; the arena calls it with
every game waiting for the agent. An agent whose thinking can be bounded in
time has a writable ``time`` attribute (seconds a move, 0: no bound).
"""

from __future__ import annotations

import abc
import importlib
import os
import re
from collections.abc import Callable, Sequence

import numpy as np

from checkers_env.core import Board, Move

__all__ = [
    "Agent",
    "AgentSpecError",
    "make_agent",
    "register_agent_kind",
    "register_agent_loader",
    "agent_kinds",
    "loader_usage",
    "parse_options",
    "parse_flag",
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

    def select_moves(self, boards: Sequence[Board]) -> list[Move]:
        """A legal move for each of several boards (none over; left unchanged).

        The default plays them one after the other with :meth:`select_move`;
        agents that batch their thinking over games (a network's MCTS)
        override it.
        """
        return [self.select_move(board) for board in boards]

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
# A loader gets (path, option text after "PATH:", or ""; variant; seed).
PathLoader = Callable[[str, str, str, "int | None"], Agent]

_KINDS: dict[str, tuple[KindFactory, str]] = {}
_LOADERS: dict[str, tuple[PathLoader | str, str]] = {}


def register_agent_kind(name: str, factory: KindFactory, usage: str) -> None:
    """Make specs ``name`` and ``name:ARGS`` build agents with ``factory(args, variant, seed)``.

    ``usage`` is the one-line help shown when a spec is wrong. The factory
    raises :class:`AgentSpecError` for bad arguments.
    """
    _KINDS[name.lower()] = (factory, usage)


def register_agent_loader(suffix: str, loader: PathLoader | str, usage: str) -> None:
    """Make specs ``PATH<suffix>`` and ``PATH<suffix>:OPTIONS`` load with ``loader(path, options, variant, seed)``.

    ``loader`` may be ``"module:function"`` text: the module is imported the
    first time such a spec is used. The loader raises :class:`AgentSpecError`
    for a file or options it cannot use.
    """
    _LOADERS[suffix.lower()] = (loader, usage)


def loader_usage(suffix: str) -> str:
    """The usage line registered for specs ``PATH<suffix>`` (what a loader quotes when its options are wrong)."""
    return _LOADERS[suffix.lower()][1]


def agent_kinds() -> list[str]:
    """Usage lines of every registered spec form."""
    return [usage for _, usage in _KINDS.values()] + [usage for _, usage in _LOADERS.values()]


def _resolve(loader: PathLoader | str) -> PathLoader:
    if callable(loader):
        return loader
    module_name, _, attr = loader.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except ImportError as exc:
        raise AgentSpecError(f"the loader {loader!r} cannot be imported: {exc}") from None


def _split_path_spec(text: str) -> tuple[str, str, PathLoader | str] | None:
    """``(path, options, loader)`` when ``text`` names a file of a registered suffix, else None."""
    lowered = text.lower()
    for suffix, (loader, _) in _LOADERS.items():
        # the suffix ends the path: at the end of the spec, or before ":options"
        for match in re.finditer(re.escape(suffix), lowered):
            end = match.end()
            if end == len(text):
                return text, "", loader
            if text[end] == ":" and not os.path.exists(text):
                return text[:end], text[end + 1 :], loader
    return None


def make_agent(spec: str, variant: str = "american", seed: int | None = None) -> Agent:
    """Build the agent a spec names (see the module docstring) for ``variant``.

    Raises :class:`AgentSpecError` with the known forms when the spec is not
    understood, and when a checkpoint file is missing or cannot be loaded.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec must be a non-empty string, got {spec!r}; {_known()}")
    text = spec.strip()
    found = _split_path_spec(text)
    if found is not None:
        path, options, loader = found
        if not os.path.isfile(path):
            raise AgentSpecError(f"{path!r} not found (an agent spec ending in a file suffix names a file)")
        agent = _resolve(loader)(path, options, variant, seed)
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


def parse_options(text: str, known: dict[str, Callable[[str], object]], spec: str, usage: str) -> dict:
    """Options ``key=value`` separated by commas (or colons) as a dict, each value converted by ``known[key]``.

    Raises :class:`AgentSpecError` naming ``spec`` and ``usage`` for an unknown
    key, a missing value or a value that does not convert.
    """
    out: dict = {}
    if not text:
        return out
    for part in re.split(r"[,:]", text):
        key, _, value = part.partition("=")
        key = key.strip().lower()
        if key not in known or not value.strip():
            raise AgentSpecError(f"bad option {part!r} in {spec!r}; use {usage}")
        try:
            out[key] = known[key](value.strip())
        except ValueError as exc:
            raise AgentSpecError(f"bad value in option {part!r} of {spec!r}: {exc}; use {usage}") from None
    return out


def parse_flag(text: str) -> bool:
    """An on/off option value: ``1``, ``yes``, ``true``, ``on`` or ``0``, ``no``, ``false``, ``off`` (any case);
    ``ValueError`` for anything else."""
    value = text.strip().lower()
    if value in ("1", "yes", "true", "on"):
        return True
    if value in ("0", "no", "false", "off"):
        return False
    raise ValueError(f"{text!r} is not 1 or 0")
