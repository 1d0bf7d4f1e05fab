"""The computer's side of a game: an agent spec turned into something that picks moves.

The page and the API name an opponent by the same agent specs as the arena
(``train.evaluate``): ``random``, ``minimax:DEPTH``, ``minimax:DEPTH:SECONDS``
or the path of a trained checkpoint. The project's :func:`agents.make_agent`
parses them and builds the agent; this module adds only what a web server
needs: a bound on the time one search may take, so that a request never hangs
for long (applied to any agent with a ``time`` attribute), and a check that
the agent's move is legal before it is played.
"""

from __future__ import annotations

from agents import AgentSpecError, MinimaxAgent, make_agent
from agents.minimax import SearchTablePool
from checkers_env.core import Board, Move

__all__ = ["Opponent", "OpponentError", "make_opponent", "warm_up", "DEFAULT_OPPONENT"]

DEFAULT_OPPONENT = "minimax:4"


class OpponentError(ValueError):
    """An opponent spec that cannot be used: unknown, malformed, or a missing or bad checkpoint."""


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
    spec, board: Board, seed: int | None = None, move_time: float = 2.0, tables: SearchTablePool | None = None
) -> Opponent:
    """The opponent that ``spec`` names, for games with ``board``'s rules.

    ``move_time`` bounds the seconds one move may think, for every agent that
    can be bounded: one with a writable ``time`` attribute (seconds a move,
    0 = no limit), as minimax and the checkpoint (MCTS) players have. A limit
    the spec set is kept when it is shorter.
    ``tables``: the pool a minimax opponent borrows its search tables from
    (one per concurrent search, shared by every game) instead of holding its
    own. Raises :class:`OpponentError` for a spec that cannot be used.
    """
    if not isinstance(spec, str) or not spec.strip():
        shown = repr(spec) if len(repr(spec)) <= 80 else repr(spec)[:79] + "…"
        raise OpponentError(f"opponent must be a non-empty agent spec such as 'minimax:4', got {shown}")
    spec = spec.strip()
    try:
        agent = make_agent(spec, variant=board.rules.name, seed=seed)
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
