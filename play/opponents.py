"""The computer's side of a game: an agent spec turned into something that picks moves.

The page and the API name an opponent by the same agent specs as the arena
(``train.evaluate``): ``random``, ``minimax:DEPTH``, ``minimax:DEPTH:SECONDS``,
or a trained checkpoint, which here is never a free path on the server's disk
but the name of one of the checkpoints in the folder the server was given
(:class:`Checkpoints`, relative to it: ``x/best.pt`` for ``runs/x/best.pt``).
The project's :func:`agents.make_agent` parses the specs and builds the agent;
this module adds only what a web server needs: the checkpoint list, a bound on
the time one search may take, so that a request never hangs for long (applied
to any agent with a ``time`` attribute), and a check that the agent's move is
legal before it is played.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from agents import AgentSpecError, MinimaxAgent, make_agent
from agents.minimax import SearchTablePool
from checkers_env.core import Board, Move

__all__ = ["Checkpoints", "Opponent", "OpponentError", "make_opponent", "warm_up", "DEFAULT_OPPONENT"]

DEFAULT_OPPONENT = "minimax:4"
DEFAULT_CHECKPOINTS = "runs"
"""The folder whose checkpoints a server offers when it is given none (``python -m play --checkpoints DIR``)."""
MAX_CHECKPOINTS = 500
"""Checkpoint files listed at most (the first in name order): a list for a person to choose from."""


class OpponentError(ValueError):
    """An opponent spec that cannot be used: unknown, malformed, or a missing or bad checkpoint."""


def is_checkpoint_spec(spec: str) -> bool:
    """Whether an agent spec names a file (a checkpoint) rather than a kind such as ``minimax:4``."""
    return spec.lower().endswith(".pt") or "/" in spec or "\\" in spec


class Checkpoints:
    """The agent checkpoints a server offers: the ``*.pt`` files under ``folder`` (searched recursively).

    Each is named by its path relative to the folder, with ``/`` between parts.
    Files that are not agent checkpoints (training states, other torch files)
    are left out, as is everything when PyTorch is not installed (``problem``
    then says why). Each file's header (:func:`agents.checkpoint.read_checkpoint`)
    is read once and again only when the file changes. Thread-safe.
    """

    def __init__(self, folder: str | os.PathLike = DEFAULT_CHECKPOINTS):
        self.folder = Path(folder)
        self.problem: str | None = None
        """Why no checkpoint can be offered at all (PyTorch missing), or None."""
        self._seen: dict[str, tuple[tuple[int, int], dict | None]] = {}
        self._lock = threading.Lock()

    def list(self) -> list[dict]:
        """``[{"name", "variant", "algo"}, ...]`` in name order: the checkpoints a game may use."""
        files = []
        if self.folder.is_dir():
            for root, dirs, names in os.walk(self.folder):
                dirs.sort()
                files += [Path(root) / n for n in sorted(names) if n.lower().endswith(".pt") and not n.startswith(".")]
                if len(files) >= MAX_CHECKPOINTS:
                    break
        try:
            from agents.checkpoint import read_checkpoint
        except ImportError as exc:
            self.problem = f"checkpoints need PyTorch, which this server lacks ({exc})"
            return []
        found = []
        with self._lock:
            for path in files[:MAX_CHECKPOINTS]:
                name = path.relative_to(self.folder).as_posix()
                try:
                    stat = path.stat()
                except OSError:
                    continue
                stamp = (stat.st_mtime_ns, stat.st_size)
                cached = self._seen.get(name)
                if cached is None or cached[0] != stamp:
                    try:
                        data = read_checkpoint(path)
                        entry = {"name": name, "variant": str(data["variant"]), "algo": str(data["algo"])}
                    except Exception:  # not an agent checkpoint: not offered
                        entry = None
                    cached = self._seen[name] = (stamp, entry)
                if cached[1] is not None:
                    found.append(cached[1])
        return found

    def find(self, name: str) -> tuple[dict, Path]:
        """The listed checkpoint called ``name`` and its file; :class:`OpponentError` if there is none."""
        for entry in self.list():
            if entry["name"] == name:
                return entry, self.folder / name
        shown = name if len(name) <= 80 else name[:79] + "…"
        raise OpponentError(
            f"checkpoint {shown!r} not found: choose one of the checkpoints this server offers "
            f"({len(self.list())} in its checkpoint folder)"
        )


class Opponent:
    """Picks the computer's moves for one game with an agent of the project.

    ``spec`` is the agent spec; ``agent`` an :class:`agents.Agent`.
    """

    def __init__(self, spec: str, agent):
        self.spec = spec
        self.agent = agent

    def select_move(self, board: Board) -> Move:
        """The agent's move in ``board`` (a legal move of it; the board is not changed)."""
        move = self.agent.select_move(board.copy())
        legal = board.legal_moves()
        if move not in legal:
            # An agent bug must not corrupt the game: refuse its move loudly.
            raise RuntimeError(f"opponent {self.spec!r} chose the illegal move {move!r} in position {board.fen()}")
        return legal[legal.index(move)]


def make_opponent(
    spec,
    board: Board,
    seed: int | None = None,
    move_time: float = 2.0,
    tables: SearchTablePool | None = None,
    checkpoints: Checkpoints | None = None,
) -> Opponent:
    """The opponent that ``spec`` names, for games with ``board``'s rules.

    ``move_time`` bounds the seconds one move may think, for every agent that
    can be bounded: one with a writable ``time`` attribute (seconds a move,
    0 = no limit), as minimax and the checkpoint (MCTS) players have. A limit
    the spec set is kept when it is shorter.
    ``tables``: the pool a minimax opponent borrows its search tables from
    (one per concurrent search, shared by every game) instead of holding its
    own. A spec that names a file must be one of ``checkpoints`` (by its
    name in that list; with ``None`` no file may be named), trained on
    ``board``'s variant. Raises :class:`OpponentError`, with a message for the
    person choosing, for a spec that cannot be used.
    """
    if not isinstance(spec, str) or not spec.strip():
        shown = repr(spec) if len(repr(spec)) <= 80 else repr(spec)[:79] + "…"
        raise OpponentError(f"opponent must be a non-empty agent spec such as 'minimax:4', got {shown}")
    spec = spec.strip()
    variant = board.rules.name
    if is_checkpoint_spec(spec):
        if checkpoints is None:
            raise OpponentError("this server offers no checkpoints: choose minimax or random")
        entry, path = checkpoints.find(spec)
        if entry["variant"] != variant:
            raise OpponentError(
                f"checkpoint {spec} was trained on {entry['variant']} draughts, not {variant}: "
                f"choose {entry['variant']} as the variant, or another checkpoint"
            )
        try:
            agent = make_agent(str(path), variant=variant, seed=seed)
        except Exception as exc:  # a file that changed or fails to load: say so without the server's paths
            text = str(exc).replace(repr(str(path)), repr(spec)).replace(str(path), spec)
            raise OpponentError(f"cannot load checkpoint {spec}: {text}") from None
        agent.name = spec
    else:
        try:
            agent = make_agent(spec, variant=variant, seed=seed)
        except (AgentSpecError, ValueError, OSError) as exc:
            raise OpponentError(f"cannot use opponent {spec!r}: {exc}") from None
    if hasattr(agent, "time"):
        limit = agent.time
        if not isinstance(limit, (int, float)) or limit <= 0 or limit > move_time:
            agent.time = float(move_time)
    if isinstance(agent, MinimaxAgent) and tables is not None:
        agent.tables = tables
    return Opponent(spec, agent)


def warm_up() -> None:
    """Compile (or load from numba's cache) the search once, so that the first game's reply is quick.

    A fresh install compiles the move generator and the search on first use,
    which takes tens of seconds; the server runs this in the background at start.
    """
    board = Board("american")
    MinimaxAgent(depth=1, seed=0, tt_bits=10).select_move(board)
