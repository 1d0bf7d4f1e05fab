"""The leg-level game: one game's state as a word array, the compiled kernels
that step it one leg at a time, and :class:`LegGames`, their Python face.

Every environment and player that steps games leg by leg stands on this
module and re-implements no rule: the PettingZoo AEC env (one game),
``VectorEnv`` (thousands of games in one compiled loop), the single-agent
views, the MCTS (its tree nodes are these word arrays) and the learners.
It is the pure game of the project, as pgx's ``Game`` classes are for pgx;
the envs are thin wrappers around it.

A *leg* is one step or one jump of a move (see :mod:`checkers_env.encoding`
for how legs are numbered as actions). A capture of several pieces is
several legs by the same player; between them the game is *in the middle of
a move*: the committed position is the one before the move, and the words
below record the legs taken so far.

Game words (``int64[GAME_SIZE]``)::

    [0, STATE_SIZE)   the committed position (movegen's state layout:
                      bitboards, side to move, draw clock, ply)
    G_LEGS            legs taken so far in the move in progress (0: none)
    G_START           bit where the moving piece started (-1: no move in progress)
    G_POS             bit where it stands now
    G_CAPT            bitboard of the pieces it has jumped so far
    G_EP_PLY          whole moves played since the episode began
    G_STATUS          STATUS_ON, STATUS_TERMINATED or STATUS_TRUNCATED
    G_WINNER          once terminated: the winner's colour, -1 for a draw
    G_NMOVES          legal whole moves of the committed position
    G_LAST_FROM/TO    the last whole move played: start bit, end bit,
    G_LAST_CAPT         captured bitboard (-1, -1, 0 before the first)
    G_PLAIN           1 when no capture is possible in the committed position
    G_ONE_LEG         1 when every legal move of it is one leg
    G_PATH + i        landing bit of leg i of the move in progress

A move in progress, russian, White's man on c3 taking two pieces
(``c3:e5:c7``) after its first leg::

    8  .  .  .  .  .  .  .  .      committed position: the man still on c3,
    7  .  .  .  .  .  .  .  .      both black pieces on the board (they are
    6  .  b  .  .  .  .  .  .      removed when the move is complete)
    5  .  .  .  .  .  .  .  .
    4  .  .  .  b  .  .  .  .      G_LEGS = 1, G_START = bit(c3),
    3  .  .  w  .  .  .  .  .      G_POS = bit(e5), G_PATH[0] = bit(e5),
    2  .  .  .  .  .  .  .  .      G_CAPT = bit(d4)
    1  .  .  .  .  .  .  .  .      the mask offers only e5 -> c7

Kernels (compiled, allocation-free; call them from other kernels or with
arrays you own): :func:`init_game`, :func:`refresh_moves`, :func:`step_game`
(returns a ``STEP_*`` code) and :func:`write_observation`. The whole-move
list is not stored with a game: most positions need none (in a *plain*
position, where no capture is possible, the moves are counted and the mask
written straight from the bitboards, and whenever every legal move is one
leg a leg from the mask is applied as the whole move), and a position with a
multi-leg capture has its list regenerated at each leg (55-120 ns), which is
cheaper than keeping one list per game.

The end of a game is judged once, by :func:`checkers_env.core.movegen.judge`,
after each whole move: the side to move with no legal move loses, then the
draw counter draws; then a ``max_moves`` cap truncates; :class:`LegGames`
adds the optional repetition rule between the two (it needs the history).
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import numpy as np
from numba import uint64 as nb_uint64

from .core import movegen as mg
from .core.board import Board, Move, Outcome, Termination
from .core.colors import Color
from .core.errors import IllegalMoveError
from .core.jit import kernel
from .core.variants import Rules, get_rules
from .encoding import (
    T_BIT_OF_INDEX,
    T_FILE,
    T_INDEX_AT,
    T_INDEX_OF_BIT,
    T_ROW,
    T_SIZE,
    action_bits,
    actions_to_move,
    make_tables,
    next_leg_bits,
    num_actions,
    prefix_matches,
    write_leg_mask,
    write_plain_mask,
)
from .observation import NUM_PLANES, PLY_SCALE, write_planes

__all__ = [
    "GAME_SIZE",
    "G_LEGS",
    "G_START",
    "G_POS",
    "G_CAPT",
    "G_EP_PLY",
    "G_STATUS",
    "G_WINNER",
    "G_NMOVES",
    "G_LAST_FROM",
    "G_LAST_TO",
    "G_LAST_CAPT",
    "G_PLAIN",
    "G_ONE_LEG",
    "G_PATH",
    "STATUS_ON",
    "STATUS_TERMINATED",
    "STATUS_TRUNCATED",
    "STEP_CONTINUES",
    "STEP_MOVED",
    "STEP_TERMINATED",
    "STEP_TRUNCATED",
    "STEP_ILLEGAL",
    "STEP_OVERFLOW",
    "init_game",
    "refresh_moves",
    "same_position",
    "step_game",
    "write_observation",
    "game_from_board",
    "LegGames",
    "random_observations",
    "LEGAL_CAPACITY",
    "copy_words",
    "clear_mask",
    "sample_one",
    "sample_actions",
    "LegStep",
]

G_LEGS = mg.STATE_SIZE
G_START = G_LEGS + 1
G_POS = G_LEGS + 2
G_CAPT = G_LEGS + 3
G_EP_PLY = G_LEGS + 4
G_STATUS = G_LEGS + 5
G_WINNER = G_LEGS + 6
G_NMOVES = G_LEGS + 7
G_LAST_FROM = G_LEGS + 8
G_LAST_TO = G_LEGS + 9
G_LAST_CAPT = G_LEGS + 10
G_PLAIN = G_LEGS + 11
G_ONE_LEG = G_LEGS + 12
G_PATH = G_LEGS + 13
GAME_SIZE = G_PATH + mg.MAX_LEGS

STATUS_ON = 0
STATUS_TERMINATED = 1
STATUS_TRUNCATED = 2

# step_game results
STEP_CONTINUES = 0  # a leg of a capture was taken; the same side moves again
STEP_MOVED = 1  # a whole move was completed; the other side moves
STEP_TERMINATED = 2  # ... and the game ended by the rules
STEP_TRUNCATED = 3  # ... and the game reached max_moves
STEP_ILLEGAL = -1  # the leg is not legal (or the game is over); the game is unchanged
STEP_OVERFLOW = -2  # a move buffer overflowed (never seen in real play)


# ---------------------------------------------------------------- kernels


@kernel(inline="always")
def _between_bits(tables, from_bit, to_bit):
    """Bitboard of the squares strictly between two squares on one diagonal."""
    n = tables[T_SIZE]
    a = tables[T_INDEX_OF_BIT + from_bit]
    b = tables[T_INDEX_OF_BIT + to_bit]
    r = tables[T_ROW + a]
    f = tables[T_FILE + a]
    dr = 1 if tables[T_ROW + b] > r else -1
    df = 1 if tables[T_FILE + b] > f else -1
    out = 0
    r += dr
    f += df
    while r != tables[T_ROW + b]:
        out |= 1 << tables[T_BIT_OF_INDEX + tables[T_INDEX_AT + r * n + f]]
        r += dr
        f += df
    return out


@kernel(inline="always")
def _judge_committed(game, params, n):
    """Set the status of ``game`` from its committed position with ``n`` legal moves
    (:func:`~checkers_env.core.movegen.judge`); return True when the game is over."""
    verdict = mg.judge(n, game[mg.S_CLOCK], params[mg.P_DRAW_PLIES])
    if verdict == mg.ONGOING:
        return False
    game[G_STATUS] = STATUS_TERMINATED
    # the side to move loses when it cannot move; a run-out draw counter draws
    game[G_WINNER] = 1 - game[mg.S_TURN] if verdict == mg.MOVER_LOSES else -1
    return True


@kernel
def init_game(game, params, moves, scratch):
    """Start a game from the committed position in ``game`` (its first ``STATE_SIZE`` words):
    no move in progress, no whole move played, and the status judged, so that a position
    that is already over (no legal move, draw counter run out) starts terminated.
    Generates its moves into ``moves``; returns their number (-1 on overflow)."""
    game[G_LEGS] = 0
    game[G_START] = -1
    game[G_POS] = -1
    game[G_CAPT] = 0
    game[G_EP_PLY] = 0
    game[G_STATUS] = STATUS_ON
    game[G_WINNER] = -1
    game[G_LAST_FROM] = -1
    game[G_LAST_TO] = -1
    game[G_LAST_CAPT] = 0
    n = refresh_moves(game, params, moves, scratch)
    if n >= 0:
        _judge_committed(game, params, n)
    return n


@kernel(inline="always")
def same_position(a, b):
    """Whether game words ``a`` and ``b`` are the same point of a game: the committed position, the
    move in progress (its legs' path) and the episode's counters agree. The record of the last whole
    move (``G_LAST_*``, kept for display: a game loaded from a board has none) and path words past
    the legs taken (left over from an earlier move) do not count."""
    for w in range(G_LAST_FROM):
        if a[w] != b[w]:
            return False
    for w in range(G_PLAIN, G_PATH + a[G_LEGS]):
        if a[w] != b[w]:
            return False
    return True


@kernel(inline="always")
def refresh_moves(game, params, moves, scratch):
    """Note the legal moves of ``game``'s committed position; return their number (-1 on overflow).

    A position where no capture is possible is *plain* (``game[G_PLAIN] = 1``):
    its moves are one-leg steps, counted from the bitboards, and ``moves`` is
    left alone (the mask comes from the bitboards too). Otherwise ``moves``
    gets the whole-move list. ``game[G_NMOVES]`` is set either way.
    """
    white = game[mg.S_WHITE]
    black = game[mg.S_BLACK]
    kings = game[mg.S_KINGS]
    turn = game[mg.S_TURN]
    own = white if turn == 0 else black
    opponents = black if turn == 0 else white
    if not mg.has_capture(params, own, opponents, kings, turn):
        n = mg.count_plain_moves(params, own, opponents, kings, turn)
        game[G_NMOVES] = n
        game[G_PLAIN] = 1
        game[G_ONE_LEG] = 1
        return n
    n = mg.generate_moves(white, black, kings, turn, params, moves, scratch)
    _note_moves(game, moves, n)
    return n


@kernel(inline="always")
def _note_moves(game, moves, n):
    """Note the number of moves of a generated list and whether it is plain and one-leg."""
    game[G_NMOVES] = n
    plain = 1
    one_leg = 1
    for m in range(n):
        if moves[m, mg.M_CAPT] != 0:
            plain = 0
        if moves[m, mg.M_LEGS] != 1:
            one_leg = 0
    game[G_PLAIN] = plain
    game[G_ONE_LEG] = one_leg


@kernel(inline="always")
def step_game(game, action, params, tables, moves, scratch, max_moves, trusted):
    """Take one leg in ``game``; return a ``STEP_*`` code.

    The game is left untouched on ``STEP_ILLEGAL`` (an illegal leg, or a game
    that is over). Afterwards the committed position's moves are noted as
    :func:`refresh_moves` does (``moves`` holds them unless the position is
    plain). After a whole move the rules judge the new position
    (:func:`~checkers_env.core.movegen.judge`: no legal move loses, then the
    draw counter draws); otherwise ``max_moves > 0`` whole moves since the
    episode began truncate it.

    ``trusted=True`` promises that ``action`` is set in the game's current
    mask: when every legal move is one leg, the move list is then not
    regenerated (the caller's ``moves`` buffer may hold another game's).
    """
    state = game[: mg.STATE_SIZE]
    if game[G_STATUS] != STATUS_ON:
        return STEP_ILLEGAL
    turn = state[mg.S_TURN]
    fb, tb = action_bits(tables, action, turn)
    if fb < 0:
        return STEP_ILLEGAL
    if trusted and game[G_ONE_LEG] == 1:
        # The leg is the whole move: it takes the opponent's piece it jumps, if any,
        # and a man ending on the far row is crowned.
        move_from = fb
        move_to = tb
        move_capt = 0
        if game[G_PLAIN] == 0:
            move_capt = _between_bits(tables, fb, tb) & (state[mg.S_BLACK] if turn == 0 else state[mg.S_WHITE])
        promo_row = params[mg.P_PROMO_WHITE] if turn == 0 else params[mg.P_PROMO_BLACK]
        move_promo = ((promo_row >> tb) & 1) & (1 - ((state[mg.S_KINGS] >> fb) & 1))
    else:
        n = mg.generate_moves(
            state[mg.S_WHITE], state[mg.S_BLACK], state[mg.S_KINGS], state[mg.S_TURN], params, moves, scratch
        )
        if n < 0:
            return STEP_OVERFLOW
        _note_moves(game, moves, n)
        k = game[G_LEGS]
        if k > 0 and fb != game[G_POS]:
            return STEP_ILLEGAL
        path = game[G_PATH:]
        found = -1
        complete = -1
        for m in range(n):
            if not prefix_matches(moves, m, game[G_START], k, path):
                continue
            frm, to = next_leg_bits(moves, m, k)
            if frm != fb or to != tb:
                continue
            if moves[m, mg.M_LEGS] == k + 1:
                complete = m
                break
            if found < 0:
                found = m
        if complete < 0 and found < 0:
            return STEP_ILLEGAL
        if complete < 0:
            if k == 0:
                game[G_START] = fb
            game[G_PATH + k] = tb
            game[G_POS] = tb
            game[G_CAPT] |= _between_bits(tables, fb, tb) & moves[found, mg.M_CAPT]
            game[G_LEGS] = k + 1
            return STEP_CONTINUES
        move_from = moves[complete, mg.M_FROM]
        move_to = moves[complete, mg.M_TO]
        move_capt = moves[complete, mg.M_CAPT]
        move_promo = moves[complete, mg.M_PROMO]
    game[G_LAST_FROM] = move_from
    game[G_LAST_TO] = move_to
    game[G_LAST_CAPT] = move_capt
    mg.apply_move(state, params, move_from, move_to, move_capt, move_promo, state)
    game[G_LEGS] = 0
    game[G_START] = -1
    game[G_POS] = -1
    game[G_CAPT] = 0
    game[G_EP_PLY] += 1
    n = refresh_moves(game, params, moves, scratch)
    if n < 0:
        return STEP_OVERFLOW
    if _judge_committed(game, params, n):
        return STEP_TERMINATED
    if max_moves > 0 and game[G_EP_PLY] >= max_moves:
        game[G_STATUS] = STATUS_TRUNCATED
        return STEP_TRUNCATED
    return STEP_MOVED


@kernel(inline="always")
def write_observation(game, perspective, params, tables, moves, ply_scale, obs, mask, legal, legal_cap, planes=True):
    """Write the planes seen by ``perspective`` (colour) into ``obs`` (unless
    ``planes`` is False) and, when that side is to move in a game still on, its
    legal legs into ``mask`` (which must be all zeros) and ``legal``. ``moves``
    must hold the game's move list unless the position is plain (see
    :func:`refresh_moves`). Returns the number of legal legs written (0 for
    the side not to move)."""
    moving_from = -1
    if game[G_LEGS] > 0:
        moving_from = game[G_START]
    if planes:
        write_planes(
            tables,
            game[: mg.STATE_SIZE],
            perspective,
            moving_from,
            game[G_POS],
            game[G_CAPT],
            params[mg.P_DRAW_PLIES],
            ply_scale,
            game[G_EP_PLY],
            obs,
        )
    if game[G_STATUS] != STATUS_ON or perspective != game[mg.S_TURN]:
        return 0
    if game[G_PLAIN] == 1:
        return write_plain_mask(tables, params, game, mask, legal, legal_cap)
    return write_leg_mask(
        tables,
        moves,
        game[G_NMOVES],
        perspective,
        game[G_START],
        game[G_LEGS],
        game[G_PATH:],
        mask,
        legal,
        legal_cap,
    )


# ---------------------------------------------------------------- Python face


def game_from_board(board: Board) -> np.ndarray:
    """The game words of a :class:`~checkers_env.core.Board`'s position: no move in progress,
    ``G_EP_PLY`` the board's ply, the status judged (a position that is over starts over)."""
    game = np.zeros(GAME_SIZE, dtype=np.int64)
    game[: mg.STATE_SIZE] = board.state
    if init_game(game, board.params, mg.new_move_buffer(), mg.new_scratch()) < 0:
        raise mg.MoveBufferOverflow(f"move buffer overflow in position {board.fen()}")
    game[G_EP_PLY] = board.ply
    return game


class LegStep(NamedTuple):
    """What :meth:`LegGames.step` reports."""

    code: int
    """``STEP_CONTINUES``, ``STEP_MOVED``, ``STEP_TERMINATED`` or ``STEP_TRUNCATED``."""
    move: Move | None
    """The whole move just completed (None while the move goes on, or without ``track_moves``)."""
    legs: tuple[int, ...]
    """The actions of the whole move just completed (empty while the move goes on)."""

    @property
    def move_done(self) -> bool:
        """Whether this leg completed a whole move."""
        return self.code != STEP_CONTINUES

    @property
    def game_over(self) -> bool:
        """Whether the game ended (by the rules or by the ``max_moves`` cap) at this leg."""
        return self.code in (STEP_TERMINATED, STEP_TRUNCATED)


class LegGames:
    """``n`` independent games of one variant, stepped leg by leg from Python.

    Slot ``i`` holds one game's words (``games[i]``, layout in the module
    docstring). :meth:`observe` writes its observation planes, action mask and
    legal legs into ``obs[i]``, ``masks[i]``, ``legal[i, :counts[i]]`` (for the
    side to move, or the ``perspective`` given); :meth:`step` takes one leg.

    Args:
        variant: a variant name or :class:`~checkers_env.core.Rules`.
        n: number of slots.
        max_moves: whole moves after which a game is truncated (0: never).
        ply_scale: plies that fill the move-number plane (default: ``max_moves``, else 200).
        track_moves: keep each slot's :class:`Board` with its move stack in step
            (``boards[i]``), so that :meth:`step` reports the whole move played. Off
            (the envs), a step costs the compiled kernel and little more.

    End of a game, in order: the rules' judge after each whole move (the side
    to move with no legal move loses, then the draw counter), then the
    optional repetition rule (``Rules.repetition_draw``; each slot counts its
    positions), then the ``max_moves`` cap (a truncation). A game that is over
    when loaded is over at once.
    """

    def __init__(self, variant: str | Rules, n: int = 1, max_moves: int = 0, ply_scale: int | None = None,
                 track_moves: bool = True):  # fmt: skip
        self.rules: Rules = get_rules(variant)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        if isinstance(max_moves, bool) or not isinstance(max_moves, (int, np.integer)) or max_moves < 0:
            raise ValueError(f"max_moves must be a non-negative integer, got {max_moves!r}")
        self.n = int(n)
        self.max_moves = int(max_moves)
        self.track_moves = bool(track_moves)
        size = self.rules.board_size
        self.num_actions = num_actions(size)
        self.ply_scale = int(ply_scale or self.max_moves or PLY_SCALE)
        self.params = mg.make_params(self.rules)
        self.tables = make_tables(size)
        self.moves = mg.new_move_buffer()
        self.scratch = mg.new_scratch()
        self.games = np.zeros((self.n, GAME_SIZE), dtype=np.int64)
        self.obs = np.zeros((self.n, NUM_PLANES, size, size), dtype=np.float32)
        self.masks = np.zeros((self.n, self.num_actions), dtype=np.int8)
        self.legal = np.zeros((self.n, self.num_actions), dtype=np.int64)
        self.counts = np.zeros(self.n, dtype=np.int64)
        self.boards: list[Board | None] = [None] * self.n
        """Each slot's board with its move stack (``track_moves``): the committed position."""
        self._legs: list[list[int]] = [[] for _ in range(self.n)]
        self._seen: list[Counter] = [Counter() for _ in range(self.n)]
        self._repeated = np.zeros(self.n, dtype=np.bool_)
        self._start = Board(self.rules)
        for i in range(self.n):
            self.load(i, self._start)

    # ------------------------------------------------------------ setting up

    def load(self, i: int, board: Board, episode_ply: int | None = None) -> None:
        """Put ``board``'s position in slot ``i`` (no move in progress; its status judged).

        ``episode_ply`` starts the count of whole moves that the move-number
        plane and ``max_moves`` read (default: the board's ply). With
        ``track_moves`` the slot keeps a copy of ``board`` with its move stack,
        so the moves played from here extend the board's game (and its
        repetitions count).
        """
        g = self.games[i]
        g[:] = 0
        g[: mg.STATE_SIZE] = board.state
        if init_game(g, self.params, self.moves, self.scratch) < 0:
            raise mg.MoveBufferOverflow(f"move buffer overflow in position {board.fen()}")
        g[G_EP_PLY] = board.ply if episode_ply is None else int(episode_ply)
        self._legs[i] = []
        if self.track_moves:
            self.boards[i] = board.copy()
        self._repeated[i] = False
        if self.rules.repetition_draw:
            self._seen[i] = Counter(_history_keys(board))
            if (
                self.status(i) == STATUS_ON
                and self._seen[i][_position_key(self.games[i])] >= self.rules.repetition_draw
            ):
                self._end_by_repetition(i)

    def reset(self, i: int) -> None:
        """Put the variant's start position in slot ``i``."""
        self.load(i, self._start)

    # ------------------------------------------------------------ reading

    def observe(self, i: int, perspective: int | None = None, planes: bool = True) -> int:
        """Write slot ``i``'s planes (as ``perspective`` sees them; default the side to move)
        into ``obs[i]`` and, for the side to move in a game still on, its legal legs into
        ``masks[i]`` and ``legal[i]``; returns the number of legal legs (0 otherwise)."""
        g = self.games[i]
        refresh_moves(g, self.params, self.moves, self.scratch)
        self.masks[i] = 0
        who = int(g[mg.S_TURN]) if perspective is None else int(perspective)
        c = write_observation(g, who, self.params, self.tables, self.moves, self.ply_scale, self.obs[i],
                              self.masks[i], self.legal[i], self.num_actions, planes)  # fmt: skip
        self.counts[i] = c
        return int(c)

    def legal_actions(self, i: int) -> list[int]:
        """The legal legs of slot ``i``'s side to move, ascending (empty once the game is over)."""
        n = self.observe(i, planes=False)
        return sorted(int(a) for a in self.legal[i, :n])

    def to_move(self, i: int) -> Color:
        """The colour to move in slot ``i`` (the same player moves again inside a capture)."""
        return Color(int(self.games[i, mg.S_TURN]))

    def status(self, i: int) -> int:
        """``STATUS_ON``, ``STATUS_TERMINATED`` or ``STATUS_TRUNCATED``."""
        return int(self.games[i, G_STATUS])

    def is_over(self, i: int) -> bool:
        """Whether slot ``i``'s game ended (by the rules or by truncation)."""
        return self.status(i) != STATUS_ON

    def winner(self, i: int) -> Color | None:
        """The winner of a terminated game (None for a draw, a truncation or a game still on)."""
        if self.status(i) != STATUS_TERMINATED or self.games[i, G_WINNER] < 0:
            return None
        return Color(int(self.games[i, G_WINNER]))

    def outcome(self, i: int) -> Outcome | None:
        """How slot ``i``'s game ended by the rules (None while on, or when truncated)."""
        if self.status(i) != STATUS_TERMINATED:
            return None
        if self.games[i, G_WINNER] >= 0:
            return Outcome(Termination.NO_LEGAL_MOVES, Color(int(self.games[i, G_WINNER])))
        if self._repeated[i]:
            return Outcome(Termination.REPETITION, None)
        return Outcome(Termination.DRAW_RULE, None)

    def legs_taken(self, i: int) -> list[int]:
        """The legs (actions) already taken in slot ``i``'s move in progress."""
        return list(self._legs[i])

    def moves_played(self, i: int) -> int:
        """Whole moves played in slot ``i`` since it was loaded."""
        return int(self.games[i, G_EP_PLY])

    def board(self, i: int) -> Board:
        """A new :class:`Board` of slot ``i``'s committed position (legs of a move in progress are
        not on it; with ``track_moves``, a copy of the slot's board with its move stack)."""
        if self.track_moves and self.boards[i] is not None:
            return self.boards[i].copy()
        return Board.from_state(self.rules, self.games[i, : mg.STATE_SIZE])

    # ------------------------------------------------------------ stepping

    def step(self, i: int, action: int) -> LegStep:
        """Take leg ``action`` in slot ``i``.

        Raises :class:`~checkers_env.core.IllegalMoveError` (the slot unchanged)
        when the leg is not legal or the game is over.
        """
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalMoveError(
                f"an action must be an integer in 0..{self.num_actions - 1}, got {type(action).__name__} {action!r}"
            )
        a = int(action)
        g = self.games[i]
        if not 0 <= a < self.num_actions:
            raise IllegalMoveError(
                f"action {action!r} is outside the action space 0..{self.num_actions - 1}; "
                f"legal actions: {self.legal_actions(i)}"
            )
        if g[G_STATUS] != STATUS_ON:
            raise IllegalMoveError(f"the game in slot {i} is over; load or reset it before stepping")
        code = step_game(g, a, self.params, self.tables, self.moves, self.scratch, self.max_moves, False)
        if code == STEP_OVERFLOW:
            raise mg.MoveBufferOverflow(f"move buffer overflow in position {self.board(i).fen()}")
        if code == STEP_ILLEGAL:
            raise IllegalMoveError(
                f"illegal action {a} in position {self.board(i).fen()} (legs taken so far: {self._legs[i]}); "
                f"legal actions: {self.legal_actions(i)}"
            )
        self._legs[i].append(a)
        if code == STEP_CONTINUES:
            return LegStep(int(code), None, ())
        legs = tuple(self._legs[i])
        self._legs[i] = []
        if self.rules.repetition_draw and code in (STEP_MOVED, STEP_TRUNCATED):
            key = _position_key(g)
            self._seen[i][key] += 1
            if self._seen[i][key] >= self.rules.repetition_draw:
                # a draw by the rules, before (and instead of) a max_moves truncation
                self._end_by_repetition(i)
                code = STEP_TERMINATED
        if not self.track_moves:
            return LegStep(int(code), None, legs)
        board = self.boards[i]
        move = actions_to_move(board, list(legs))
        board.push(move)
        return LegStep(int(code), move, legs)

    def _end_by_repetition(self, i: int) -> None:
        self.games[i, G_STATUS] = STATUS_TERMINATED
        self.games[i, G_WINNER] = -1
        self._repeated[i] = True

    def __repr__(self) -> str:
        return f"LegGames({self.rules.name!r}, n={self.n})"


# Batches of games: kernels shared by the batched envs (vector.py, gym_vector.py).

LEGAL_CAPACITY = 64
"""Legal actions remembered per game (to clear masks and sample without scanning);
positions with more fall back to scanning the mask."""


def random_observations(
    variant: str | Rules, count: int, seed: int = 0, max_plies: int = 12
) -> tuple[np.ndarray, np.ndarray]:
    """Observation planes and action masks of ``count`` positions, each reached from the start by a
    random number (below ``max_plies``) of random legs: ``(float32[count, NUM_PLANES, N, N],
    int8[count, num_actions])``, copies. A game that ends on the way is observed where it ended (no
    legal leg). What a network is timed or compared on when real positions, not zeros, are wanted."""
    if count < 1 or max_plies < 1:
        raise ValueError(f"count and max_plies must be at least 1, got {count!r} and {max_plies!r}")
    rng = np.random.default_rng(seed)
    games = LegGames(variant, count, track_moves=False)
    for i in range(count):
        for _ in range(int(rng.integers(0, max_plies))):
            legs = games.observe(i)
            if legs == 0:
                break
            games.step(i, int(rng.choice(games.legal[i, :legs])))
        games.observe(i)
    return games.obs.copy(), games.masks.copy()


@kernel
def copy_words(dst, src):
    """``dst[:] = src`` (a slice assignment would need numba's allocator for a temporary)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@kernel(inline="always")
def clear_mask(mask, legal, count, legal_cap):
    """Zero the set entries of ``mask``: only ``legal[:count]`` when they were all remembered, else all."""
    if count > legal_cap:
        mask[:] = 0
    else:
        for i in range(count):
            mask[legal[i]] = 0


@kernel(inline="always")
def sample_one(rng, e, mask, legal, count):
    """Advance game ``e``'s generator (splitmix64) and return a uniformly random legal action
    of its ``mask`` / ``legal[:count]`` (-1 when ``count`` is 0). The generator advances
    whether or not an action is drawn."""
    golden = nb_uint64(0x9E3779B97F4A7C15)
    m1 = nb_uint64(0xBF58476D1CE4E5B9)
    m2 = nb_uint64(0x94D049BB133111EB)
    rng[e] += golden
    z = rng[e]
    z = (z ^ (z >> nb_uint64(30))) * m1
    z = (z ^ (z >> nb_uint64(27))) * m2
    z = z ^ (z >> nb_uint64(31))
    if count <= 0:
        return -1
    # Lemire's multiply-shift maps the high 32 bits onto 0..count-1 without a division
    pick = np.int64(((z >> nb_uint64(32)) * nb_uint64(count)) >> nb_uint64(32))
    if count <= legal.shape[0]:
        return legal[pick]
    for a in range(mask.shape[0]):
        if mask[a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


@kernel
def sample_actions(rng, masks, legal, counts, out):
    """One uniformly random legal action per game (:func:`sample_one`)."""
    for e in range(out.shape[0]):
        out[e] = sample_one(rng, e, masks[e], legal[e], counts[e])


def _position_key(game: np.ndarray) -> tuple[int, int, int, int]:
    """What the repetition rule compares: the pieces and the side to move."""
    return (int(game[mg.S_WHITE]), int(game[mg.S_BLACK]), int(game[mg.S_KINGS]), int(game[mg.S_TURN]))


def _history_keys(board: Board) -> list[tuple[int, int, int, int]]:
    """Position keys of ``board``'s current position and of every position before it in its move stack."""
    walk = board.copy()
    keys = [_position_key(walk.state)]
    while walk.move_stack:
        walk.pop()
        keys.append(_position_key(walk.state))
    return keys
