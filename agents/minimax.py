"""The scripted baseline: alpha-beta minimax over the rules core, for every variant.

    >>> from checkers_env.core import Board
    >>> from agents.minimax import MinimaxAgent
    >>> agent = MinimaxAgent(depth=4, seed=0)
    >>> move = agent.select_move(Board("american"))
    >>> agent.last_search.depth
    4

The search itself (iterative deepening, PVS, transposition table, quiescence
over pending captures, killer and history ordering) is the numba kernel in
:mod:`agents.alphabeta`. This module holds the agent, the hand-written
evaluation weights per variant, and the spec factory (``minimax:DEPTH``,
``minimax:DEPTH:SECONDS``, ``minimax:depth=D,time=S,nodes=N``).

Evaluation terms (from the side to move, a man = 100):

* material, with a king worth 1.5 men where kings are short and 3 men where
  they fly (a flying king controls whole diagonals);
* trading down when ahead (each piece off the board adds to the leader's edge);
* back-rank guard (men left on the home row stop the opponent crowning);
* centre control for men and kings; kings on the side edges are penalised
  (keep kings active and out of the corners);
* mobility (plain steps available);
* men in pairs (a man with a friend right behind it cannot be jumped from the
  front);
* advancement, and runaway men with no enemy piece able to cross their path;
* the draw clock: scores shrink toward the draw as the no-progress counter
  runs out, and a position at the draw limit is a draw.

These follow the usual strategy advice of checkers books (hold the centre, keep the back
row, move in pairs, count forced captures, trade when ahead, crown early and
keep kings active).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from checkers_env.core import Board, Move, Rules, get_rules
from checkers_env.core import movegen as mg
from checkers_env.core.geometry import geometry

from . import alphabeta as ks
from .base import Agent, AgentSpecError, parse_options, register_agent_kind

__all__ = ["MinimaxAgent", "SearchInfo", "SearchTables", "SearchTablePool", "evaluation_weights", "evaluate_board"]

DEFAULT_WEIGHTS = {
    "man": 100,
    "short_king": 150,
    "flying_king": 300,
    "back": 8,
    "center": 4,
    "king_center": 10,
    "king_edge": 8,
    "mobility": 2,
    "support": 3,
    "advance": 1,
    "runaway": 30,
    "trade": 2,
    "threat_extension": 1,
}
"""Evaluation weights; :class:`MinimaxAgent` takes overrides of any of them."""


@dataclass(frozen=True)
class SearchInfo:
    """What the last search found."""

    depth: int
    """Deepest completed iteration (plies)."""
    nodes: int
    """Nodes visited (all iterations)."""
    score: int
    """Score of the chosen move for the side to move (a man = 100; a win is near ``MATE``)."""
    ties: int
    """How many root moves shared the best score (one was drawn at random)."""
    aborted: bool
    """Whether a node or time limit cut the last iteration short."""
    seconds: float
    """Wall time of the search."""

    @property
    def is_win(self) -> bool:
        return self.score > ks.MATE_BOUND

    @property
    def is_loss(self) -> bool:
        return self.score < -ks.MATE_BOUND


def evaluation_weights(rules: Rules, **overrides: int) -> np.ndarray:
    """The ``ev`` array the kernel reads, for a variant's rules and optional weight overrides."""
    unknown = sorted(set(overrides) - set(DEFAULT_WEIGHTS))
    if unknown:
        raise ValueError(f"unknown evaluation weight(s) {unknown}; known: {sorted(DEFAULT_WEIGHTS)}")
    w = {**DEFAULT_WEIGHTS, **overrides}
    return _weights(rules, tuple(sorted(w.items()))).copy()


@lru_cache(maxsize=64)
def _weights(rules: Rules, items: tuple) -> np.ndarray:
    w = dict(items)
    g = geometry(rules.board_size)
    size = g.size
    ev = np.zeros(ks.EV_SIZE, dtype=np.int64)
    ev[ks.EV_MAN] = w["man"]
    ev[ks.EV_KING] = w["flying_king"] if rules.kings_fly else w["short_king"]
    ev[ks.EV_BACK] = w["back"]
    ev[ks.EV_CENTER] = w["center"]
    ev[ks.EV_KCENTER] = w["king_center"]
    ev[ks.EV_KEDGE] = w["king_edge"]
    ev[ks.EV_MOB] = w["mobility"]
    ev[ks.EV_SUPPORT] = w["support"]
    ev[ks.EV_ADV] = w["advance"]
    ev[ks.EV_RUN] = w["runaway"]
    ev[ks.EV_TRADE] = w["trade"]
    ev[ks.EV_START] = 2 * rules.men_per_side
    ev[ks.EV_THREAT_EXT] = 1 if w["threat_extension"] else 0
    ev[ks.EV_ROWS] = size
    centre = [i for i in range(g.squares) if 2 <= g.row[i] <= size - 3 and 2 <= g.file[i] <= size - 3]
    edge = [i for i in range(g.squares) if g.file[i] in (0, size - 1)]
    ev[ks.EV_M_CENTER] = g.bits(centre)
    ev[ks.EV_M_EDGE] = g.bits(edge)
    ev[ks.EV_M_OFFBOARD] = ((1 << 63) - 1) & ~g.mask
    for i in range(g.squares):
        bit = int(g.bit_of_index[i])
        row, file = int(g.row[i]), int(g.file[i])
        ev[ks.EV_ADV_W + bit] = size - 1 - row
        ev[ks.EV_ADV_B + bit] = row
        ahead_w = [j for j in range(g.squares) if g.row[j] < row and abs(int(g.file[j]) - file) <= row - g.row[j]]
        ahead_b = [j for j in range(g.squares) if g.row[j] > row and abs(int(g.file[j]) - file) <= g.row[j] - row]
        ev[ks.EV_CONE_W + bit] = g.bits(ahead_w)
        ev[ks.EV_CONE_B + bit] = g.bits(ahead_b)
    return ev


def evaluate_board(board: Board, **overrides: int) -> int:
    """The static evaluation of a board from the side to move (a man = 100), for inspection and tests."""
    s = board.state
    ev = evaluation_weights(board.rules, **overrides)
    return int(ks.evaluate(s[mg.S_WHITE], s[mg.S_BLACK], s[mg.S_KINGS], s[mg.S_TURN], s[mg.S_CLOCK], board.params, ev))


_ZOBRIST = ks.new_zobrist()
_warm = False


def _warm_up(board: Board) -> None:
    """Load the compiled kernel once per process, so the first timed search is not charged for it."""
    global _warm
    if _warm:
        return
    tt = np.zeros((1024, ks.TT_FIELDS), dtype=np.int64)
    ev = evaluation_weights(board.rules)
    ks.search(
        board.state,
        board.params,
        ev,
        _ZOBRIST,
        tt,
        ks.new_buffers(),
        mg.new_scratch(),
        np.zeros((64, 64), dtype=np.int64),
        1,
        0,
        0.0,
        np.zeros(ks.INFO_SIZE, dtype=np.int64),
        np.zeros(mg.MAX_MOVES, dtype=np.int64),
    )
    _warm = True


class SearchTables:
    """The arrays one search works in: the transposition table (``2**tt_bits`` entries of 24 bytes), the
    per-ply move buffers (16 MB), the move generator's scratch, the history heuristic and the outputs.

    ``numpy.zeros`` of this size maps zero pages that the system commits only as the search writes
    them, so a table never searched with costs almost nothing resident. ``owner`` names the agent
    (and game) whose entries it holds, so that a table handed to another is cleared first.
    """

    def __init__(self, tt_bits: int = 18):
        if not 10 <= tt_bits <= 26:
            raise ValueError(f"tt_bits must be from 10 to 26, got {tt_bits}")
        self.tt_bits = tt_bits
        self.tt = np.zeros((1 << tt_bits, ks.TT_FIELDS), dtype=np.int64)
        self.bufs = ks.new_buffers()
        self.scratch = mg.new_scratch()
        self.history = np.zeros((64, 64), dtype=np.int64)
        self.info = np.zeros(ks.INFO_SIZE, dtype=np.int64)
        self.ties = np.zeros(mg.MAX_MOVES, dtype=np.int64)
        self.owner: int | None = None

    def take(self, owner: int) -> None:
        """Make the tables ``owner``'s: entries another owner wrote (other rules, weights or game) are wiped."""
        if self.owner != owner:
            if self.owner is not None:  # fresh tables are zero already: leave their pages untouched
                self.tt[:] = 0
                self.history[:] = 0
            self.owner = owner


class SearchTablePool:
    """Search tables shared by many agents: each search borrows a :class:`SearchTables` and gives it back.

    At most ``size`` tables ever exist, created on demand; a search that finds them all in use
    waits for one (the search is compiled code that holds the interpreter lock, so more tables
    than concurrent searches the machine can run would buy memory, not speed). A table goes back
    preferably to the agent that used it last, which then keeps its transposition entries from
    move to move; one handed to another agent is cleared first, so an agent never reads entries
    written under other rules or weights. Thread-safe.
    """

    def __init__(self, size: int = 2, tt_bits: int = 18):
        if not (isinstance(size, int) and size >= 1):
            raise ValueError(f"size must be a positive integer, got {size!r}")
        if not 10 <= tt_bits <= 26:
            raise ValueError(f"tt_bits must be from 10 to 26, got {tt_bits}")
        self.size = size
        self.tt_bits = tt_bits
        self._free: list[SearchTables] = []
        self._made = 0
        self._cond = threading.Condition()

    @property
    def created(self) -> int:
        """How many tables exist (at most ``size``)."""
        with self._cond:
            return self._made

    @contextmanager
    def borrow(self, owner: int) -> Iterator[SearchTables]:
        """A table for ``owner``'s search, for the ``with`` block (waits while all ``size`` are in use)."""
        with self._cond:
            while not self._free and self._made >= self.size:
                self._cond.wait()
            if self._free:
                mine = [i for i, t in enumerate(self._free) if t.owner == owner]
                tables = self._free.pop(mine[-1] if mine else -1)
            else:
                tables = SearchTables(self.tt_bits)
                self._made += 1
        try:
            tables.take(owner)
            yield tables
        finally:
            with self._cond:
                self._free.append(tables)
                self._cond.notify()


_OWNERS = itertools.count(1)


class MinimaxAgent(Agent):
    """Alpha-beta search with a depth, node and/or time limit (whichever ends first).

    ``depth`` is in plies (default 4 when no limit is given); ``nodes`` and
    ``time`` (seconds) are per move. Among root moves with exactly the best
    score one is chosen with the agent's generator, so play is deterministic
    for a seed whenever the limit is a depth or a node count. ``tt_bits`` sets
    the transposition table size (``2**tt_bits`` entries of 24 bytes);
    ``weights`` overrides :data:`DEFAULT_WEIGHTS`; ``use_tt=False`` turns the
    table off (a plain alpha-beta whose scores equal full minimax, for tests).

    The search tables (about 23 MB at the default size, see :class:`SearchTables`) are allocated
    at the first search, not at construction. ``tables`` is a :class:`SearchTablePool` to borrow
    them from instead (it may also be set after construction): many agents, one per game of a
    server, then share a few tables rather than each holding its own, and ``tt_bits`` is the
    pool's.
    """

    name = "minimax"

    def __init__(
        self,
        depth: int | None = None,
        nodes: int | None = None,
        time: float | None = None,
        seed: int | None = None,
        tt_bits: int = 18,
        weights: dict | None = None,
        use_tt: bool = True,
        tables: SearchTablePool | None = None,
    ):
        super().__init__(seed)
        if depth is None and nodes is None and time is None:
            depth = 4
        if depth is not None and not (isinstance(depth, (int, np.integer)) and 1 <= depth <= ks.MAX_PLY - 8):
            raise ValueError(f"depth must be an integer from 1 to {ks.MAX_PLY - 8}, got {depth!r}")
        if nodes is not None and not (isinstance(nodes, (int, np.integer)) and nodes >= 1):
            raise ValueError(f"nodes must be a positive integer, got {nodes!r}")
        if time is not None and not time > 0:
            raise ValueError(f"time must be a positive number of seconds, got {time!r}")
        if not 10 <= tt_bits <= 26:
            raise ValueError(f"tt_bits must be from 10 to 26, got {tt_bits}")
        self.depth = int(depth) if depth is not None else ks.MAX_PLY - 8
        self.nodes = int(nodes) if nodes is not None else 0
        self.time = float(time) if time is not None else 0.0
        self.weights = dict(weights or {})
        self.use_tt = bool(use_tt)
        evaluation_weights(get_rules("american"), **self.weights)  # validate the names now
        self.tt_bits = int(tt_bits)
        self.tables = tables
        """The pool the search tables are borrowed from, or None: the agent's own (made at the first search)."""
        self._own: SearchTables | None = None
        self._owner = next(_OWNERS)  # names this agent's game to the tables; a reset takes a new one
        self.last_search: SearchInfo | None = None
        """What the most recent :meth:`select_move` search found."""

    def reset(self, seed: int | None = None) -> None:
        """New game: reseed; the transposition table and the history heuristic are cleared before the next search."""
        super().reset(seed)
        self._owner = next(_OWNERS)
        self.last_search = None

    @contextmanager
    def _tables(self) -> Iterator[SearchTables]:
        if self.tables is not None:
            with self.tables.borrow(self._owner) as tables:
                yield tables
            return
        if self._own is None:
            self._own = SearchTables(self.tt_bits)
        self._own.take(self._owner)
        yield self._own

    def search(self, board: Board) -> tuple[list[Move], SearchInfo]:
        """Search ``board``; return the root moves sharing the best score and the search summary."""
        import time as _time

        _warm_up(board)
        ev = evaluation_weights(board.rules, **self.weights)
        ev[ks.EV_USE_TT] = int(self.use_tt)
        with self._tables() as tables:
            start = _time.perf_counter()
            ks.search(
                board.state,
                board.params,
                ev,
                _ZOBRIST,
                tables.tt,
                tables.bufs,
                tables.scratch,
                tables.history,
                self.depth,
                self.nodes,
                self.time,
                tables.info,
                tables.ties,
            )
            seconds = _time.perf_counter() - start
            # Old history counts would swamp the next move's: age them.
            tables.history >>= 2
            info = tables.info.copy()
            ties = tables.ties[: int(info[ks.I_NTIES])].copy()
        moves = board.legal_moves()
        if int(info[ks.I_NMOVES]) != len(moves):
            raise RuntimeError(
                f"search saw {int(info[ks.I_NMOVES])} root moves but the board has {len(moves)} in {board.fen()}"
            )
        if not moves:
            raise ValueError(f"no legal move to choose in position {board.fen()} (the game is over)")
        n_ties = int(info[ks.I_NTIES])
        best = [moves[int(i)] for i in ties]
        summary = SearchInfo(
            depth=int(info[ks.I_DEPTH]),
            nodes=int(info[ks.I_NODES]),
            score=int(info[ks.I_SCORE]),
            ties=n_ties,
            aborted=bool(info[ks.I_ABORTED]),
            seconds=seconds,
        )
        return best, summary

    def select_move(self, board: Board) -> Move:
        best, summary = self.search(board)
        self.last_search = summary
        if len(best) == 1:
            return best[0]
        return best[int(self.rng.integers(len(best)))]


_KEYS = {"depth": int, "time": float, "nodes": int}


def _factory(args: str, variant: str, seed: int | None) -> Agent:
    usage = "minimax:DEPTH, minimax:DEPTH:SECONDS or minimax:depth=D,time=S,nodes=N"
    kwargs: dict = {}
    try:
        if not args:
            pass
        elif "=" in args:
            kwargs = parse_options(args, _KEYS, f"minimax:{args}", usage)
        else:
            parts = args.split(":")
            if len(parts) > 2:
                raise AgentSpecError(f"too many fields in 'minimax:{args}'; use {usage}")
            kwargs["depth"] = int(parts[0])
            if len(parts) == 2:
                kwargs["time"] = float(parts[1])
        return MinimaxAgent(seed=seed, **kwargs)
    except AgentSpecError:
        raise
    except ValueError as exc:
        raise AgentSpecError(f"bad minimax spec 'minimax:{args}': {exc}; use {usage}") from None


register_agent_kind("minimax", _factory, "minimax:DEPTH[:SECONDS] or minimax:depth=D,time=S,nodes=N")
