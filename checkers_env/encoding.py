"""The action encoding: one action is one leg of a move, in the mover's frame.

This module is the only place that knows the action layout. Everything else
(the AEC env, ``VectorEnv``, wrappers, agents) converts through it.

A *leg* is one step or one jump of a move: ``(from square, direction,
distance)``. A plain move is one leg; a capture of ``k`` pieces is ``k`` legs
made one after the other by the same agent. Legs are numbered in the frame of
the player to move, so the same action index means the same geometric move
for either colour:

* White moves in the board's own frame (square index as in geometry.py,
  White's men moving "up", toward index 0).
* Black's board is turned half a turn first: index ``i`` becomes
  ``squares - 1 - i`` and direction ``d`` becomes ``3 - d`` (NW <-> SE,
  NE <-> SW). Black's men then also move "up".

The action index packs the leg as::

    action = (from_index * 4 + direction) * D + (distance - 1)

    D = board_size - 1 distances (7 on 8x8, 9 on 10x10)
    8x8:   32 squares * 4 directions * 7 distances = Discrete(896)
    10x10: 50 squares * 4 directions * 9 distances = Discrete(1800)

Square indices and directions, seen by the player to move (8x8)::

       a  b  c  d  e  f  g  h          directions
    8  .  0  .  1  .  2  .  3           NW=0   NE=1
    7  4  .  5  .  6  .  7  .              \\   /
    6  .  8  .  9  . 10  . 11               sq
    5 12  . 13  . 14  . 15  .              /   \\
    4  . 16  . 17  . 18  . 19           SW=2   SE=3
    3 20  . 21  . 22  . 23  .
    2  . 24  . 25  . 26  . 27      the mover's men go NW/NE
    1 28  . 29  . 30  . 31  .      (their own side is at the bottom)

    Example (White to move, american start): 22-18 is index 21 -> index 17,
    direction NE (1), distance 1: action (21*4 + 1)*7 + 0 = 595.
    The same move for Black seen from Black's side, 11-15 (index 10 -> 14),
    becomes index 21 -> 17 direction NE after the half turn: also 595.

Many action indices are never legal (a leg that leaves the board); the mask
only ever marks real legs. A leg is legal when some legal whole move (from
the core's generator, duplicates of routes dropped) starts with the legs
already taken in this move followed by it, so every precedence rule of the
variant (most pieces, king first, ...) reaches the agent exactly.

The numba kernels here read a ``tables`` array from :func:`make_tables`; the
Python helpers convert between actions, legs, :class:`~checkers_env.core.Move`
and PDN text.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from .core import movegen as mg
from .core.bits import lowest_bit
from .core.board import Board, Move
from .core.errors import IllegalMoveError
from .core.geometry import NE, NW, SE, SW, direction_shift, geometry, on_board, step
from .core.jit import kernel

__all__ = [
    "Leg",
    "num_actions",
    "max_distance",
    "encode_action",
    "decode_action",
    "leg_to_action",
    "action_to_leg",
    "move_to_actions",
    "actions_to_move",
    "text_to_actions",
    "actions_to_text",
    "legal_action_sequences",
    "make_tables",
    "policy_map_index",
]

# tables words (int64), filled by make_tables
T_SIZE = 0  # board size N
T_SQUARES = 1  # playable squares S
T_DIST = 2  # distances per direction, D = N - 1
T_ACTIONS = 3  # number of actions, S * 4 * D
T_INDEX_OF_BIT = 8  # 64 words: square index of a padded bit position, -1 for none
T_BIT_OF_INDEX = T_INDEX_OF_BIT + 64  # 50 words
T_ROW = T_BIT_OF_INDEX + 50  # row from the top of each index
T_FILE = T_ROW + 50  # file from the left of each index
T_INDEX_AT = T_FILE + 50  # N*N words: index at (row, file), -1 for a light square
MAX_ACTIONS = 1800  # the largest action space (10x10)
# 2 * MAX_ACTIONS words: the leg an action names for each side to move, packed as
# from_bit | to_bit << 8 (padded bit positions), -1 when it leaves the board
T_LEG_OF_ACTION = T_INDEX_AT + 100
# 2 * 64 * 4 words: for side t, padded bit b and board direction d, the action of the
# one-square leg from b in direction d (-1 off the board); a leg of distance k is that
# action + k - 1, since distance is the last digit of the action number
T_STEP_ACTION = T_LEG_OF_ACTION + 2 * MAX_ACTIONS
# 2 * 100 words: for perspective p and cell row * N + file of p's frame, the padded
# bit of the square drawn there, or 63 (a bit no bitboard has) for a light square
T_CELL_BIT = T_STEP_ACTION + 2 * 64 * 4
NO_SQUARE_BIT = 63
TABLES_SIZE = T_CELL_BIT + 2 * 100


class Leg(NamedTuple):
    """One step or jump of a move, in board coordinates (not the mover's frame)."""

    start: int
    """Square index the piece leaves."""
    direction: int
    """NW=0, NE=1, SW=2, SE=3 as in geometry.py."""
    distance: int
    """Diagonal steps, 1 .. board_size - 1."""
    end: int
    """Square index where the piece lands."""


def num_actions(board_size: int) -> int:
    """Size of the action space: 896 on 8x8, 1800 on 10x10."""
    g = geometry(board_size)
    return g.squares * 4 * (board_size - 1)


def max_distance(board_size: int) -> int:
    """Longest leg: ``board_size - 1`` diagonal steps."""
    return board_size - 1


def _check_board_size(board_size: int) -> None:
    if board_size not in (8, 10):
        raise ValueError(f"board_size must be 8 or 10, got {board_size!r}")


def encode_action(from_index: int, direction: int, distance: int, board_size: int) -> int:
    """Action index of a leg given in the mover's frame (no rotation applied)."""
    _check_board_size(board_size)
    squares = board_size * board_size // 2
    if not 0 <= from_index < squares:
        raise ValueError(f"from_index must be in 0..{squares - 1}, got {from_index}")
    if not 0 <= direction < 4:
        raise ValueError(f"direction must be 0..3 (NW, NE, SW, SE), got {direction}")
    if not 1 <= distance <= board_size - 1:
        raise ValueError(f"distance must be 1..{board_size - 1}, got {distance}")
    return (from_index * 4 + direction) * (board_size - 1) + distance - 1


def decode_action(action: int, board_size: int) -> tuple[int, int, int]:
    """``(from_index, direction, distance)`` of an action, in the mover's frame."""
    _check_board_size(board_size)
    n = num_actions(board_size)
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"an action must be an integer, got {type(action).__name__} {action!r}")
    if not 0 <= int(action) < n:
        raise ValueError(f"action must be in 0..{n - 1} for a {board_size}x{board_size} board, got {action}")
    d_count = board_size - 1
    rest, distance = divmod(int(action), d_count)
    from_index, direction = divmod(rest, 4)
    return from_index, direction, distance + 1


def _rotate(index: int, direction: int, board_size: int, turn: int) -> tuple[int, int]:
    if turn == 0:
        return index, direction
    return board_size * board_size // 2 - 1 - index, 3 - direction


def action_to_leg(action: int, board_size: int, turn: int) -> Leg | None:
    """The leg (board coordinates) an action names when ``turn`` (0 White, 1 Black)
    is to move, or None when the leg leaves the board."""
    from_index, direction, distance = decode_action(action, board_size)
    start, direction = _rotate(from_index, direction, board_size, int(turn))
    end = geometry(board_size).neighbour(start, direction, distance)
    if end is None:
        return None
    return Leg(start, direction, distance, end)


def leg_to_action(start: int, end: int, board_size: int, turn: int) -> int:
    """Action index of the leg ``start -> end`` (board coordinates) for the side ``turn``."""
    g = geometry(board_size)
    for index in (start, end):
        if not 0 <= index < g.squares:
            raise ValueError(f"square index must be in 0..{g.squares - 1}, got {index}")
    found = g.direction_between(start, end)
    if found is None:
        raise ValueError(f"squares {start} and {end} are not on one diagonal")
    direction, distance = found
    from_index, direction = _rotate(start, direction, board_size, int(turn))
    return encode_action(from_index, direction, distance, board_size)


def move_to_actions(move: Move, board_size: int, turn: int) -> list[int]:
    """The actions (one per leg) that play ``move`` for the side ``turn``."""
    actions = []
    at = move.start
    for land in move.path:
        actions.append(leg_to_action(at, land, board_size, turn))
        at = land
    return actions


def legal_action_sequences(board: Board) -> dict[tuple[int, ...], Move]:
    """Every legal move of ``board`` keyed by the action sequence that plays it."""
    size = board.rules.board_size
    turn = int(board.turn)
    return {tuple(move_to_actions(m, size, turn)): m for m in board.legal_moves()}


def actions_to_move(board: Board, actions) -> Move:
    """The legal move of ``board`` that the action sequence plays.

    Raises :class:`~checkers_env.core.IllegalMoveError` when the actions do not
    form a whole legal move, naming the legal sequences.
    """
    sequences = legal_action_sequences(board)
    key = tuple(int(a) for a in actions)
    if key not in sequences:
        legal = "; ".join(f"{m}: {list(seq)}" for seq, m in sequences.items()) or "none"
        raise IllegalMoveError(
            f"actions {list(key)} are not a legal whole move in position {board.fen()}; legal moves: {legal}"
        )
    return sequences[key]


def text_to_actions(board: Board, text: str) -> list[int]:
    """The actions that play the move given as PDN text (``"11-15"``, ``"c3:e5"``)."""
    return move_to_actions(board.parse_move(text), board.rules.board_size, int(board.turn))


def actions_to_text(board: Board, actions) -> str:
    """PDN text of the whole move that an action sequence plays on ``board``."""
    return str(actions_to_move(board, actions))


@cache
def _policy_map_index(board_size: int) -> np.ndarray:
    g = geometry(board_size)
    cells = board_size * board_size
    d_count = board_size - 1
    index = np.empty(num_actions(board_size), dtype=np.int64)
    for action in range(index.size):
        from_index, direction, distance = decode_action(action, board_size)
        cell = int(g.row[from_index]) * board_size + int(g.file[from_index])
        index[action] = (direction * d_count + distance - 1) * cells + cell
    index.flags.writeable = False
    return index


def policy_map_index(board_size: int) -> np.ndarray:
    """Where each action sits in a per-square policy map (read-only ``int64[num_actions]``).

    A convolutional policy head outputs ``[4 * D, N, N]`` per position: for
    every board cell one value per (direction, distance), channel
    ``direction * D + distance - 1``. The action ``(from_index, direction,
    distance)`` reads the channel of its direction and distance at the cell of
    its start square; in the mover's frame that cell is
    ``(row[from_index], file[from_index])`` for either colour, since the
    observation planes turn Black's board as the actions do. So
    ``logits = head(x).flatten(1)[:, policy_map_index(N)]``.
    """
    _check_board_size(board_size)
    return _policy_map_index(board_size)


@cache
def _tables(board_size: int) -> np.ndarray:
    g = geometry(board_size)
    t = np.full(TABLES_SIZE, -1, dtype=np.int64)
    t[T_SIZE] = board_size
    t[T_SQUARES] = g.squares
    t[T_DIST] = board_size - 1
    t[T_ACTIONS] = num_actions(board_size)
    t[T_INDEX_OF_BIT : T_INDEX_OF_BIT + 64] = g.index_of_bit
    t[T_BIT_OF_INDEX : T_BIT_OF_INDEX + g.squares] = g.bit_of_index
    t[T_ROW : T_ROW + g.squares] = g.row
    t[T_FILE : T_FILE + g.squares] = g.file
    for i in range(g.squares):
        t[T_INDEX_AT + int(g.row[i]) * board_size + int(g.file[i])] = i
    for turn in (0, 1):
        for action in range(num_actions(board_size)):
            leg = action_to_leg(action, board_size, turn)
            if leg is not None:
                packed = int(g.bit_of_index[leg.start]) | int(g.bit_of_index[leg.end]) << 8
                t[T_LEG_OF_ACTION + turn * MAX_ACTIONS + action] = packed
        for i in range(g.squares):
            for direction in range(4):
                end = g.neighbour(i, direction, 1)
                if end is not None:
                    slot = T_STEP_ACTION + (turn * 64 + int(g.bit_of_index[i])) * 4 + direction
                    t[slot] = leg_to_action(i, end, board_size, turn)
        t[T_CELL_BIT + turn * 100 : T_CELL_BIT + (turn + 1) * 100] = NO_SQUARE_BIT
        for i in range(g.squares):
            j = i if turn == 0 else g.squares - 1 - i
            t[T_CELL_BIT + turn * 100 + int(g.row[j]) * board_size + int(g.file[j])] = g.bit_of_index[i]
    t.flags.writeable = False
    return t


def make_tables(board_size: int) -> np.ndarray:
    """The read-only ``tables`` array the numba kernels of the env layer read."""
    _check_board_size(board_size)
    return _tables(board_size)


# ---------------------------------------------------------------- kernels


@kernel(inline="always")
def leg_action(tables, from_bit, to_bit, turn):
    """Action index of the leg between two padded bit positions for side ``turn``."""
    n = tables[T_SIZE]
    s = tables[T_SQUARES]
    a = tables[T_INDEX_OF_BIT + from_bit]
    b = tables[T_INDEX_OF_BIT + to_bit]
    dr = tables[T_ROW + b] - tables[T_ROW + a]
    df = tables[T_FILE + b] - tables[T_FILE + a]
    if dr < 0:
        d = 0 if df < 0 else 1
        dist = -dr
    else:
        d = 2 if df < 0 else 3
        dist = dr
    if turn == 1:
        a = s - 1 - a
        d = 3 - d
    return (a * 4 + d) * (n - 1) + dist - 1


@kernel(inline="always")
def action_bits(tables, action, turn):
    """``(from_bit, to_bit)`` of an action for side ``turn``; ``(-1, -1)`` when it is
    out of range or leaves the board."""
    if action < 0 or action >= tables[T_ACTIONS]:
        return -1, -1
    packed = tables[T_LEG_OF_ACTION + turn * MAX_ACTIONS + action]
    if packed < 0:
        return -1, -1
    return packed & 255, packed >> 8


@kernel(inline="always")
def prefix_matches(moves, m, start_bit, legs_taken, path):
    """Whether whole move ``m`` starts on ``start_bit`` with the ``legs_taken`` landings of ``path``."""
    if legs_taken == 0:
        return True
    if moves[m, mg.M_FROM] != start_bit or moves[m, mg.M_LEGS] <= legs_taken:
        return False
    for i in range(legs_taken):
        if moves[m, mg.M_PATH + i] != path[i]:
            return False
    return True


@kernel(inline="always")
def next_leg_bits(moves, m, legs_taken):
    """``(from_bit, to_bit)`` of leg number ``legs_taken`` of whole move ``m``."""
    frm = moves[m, mg.M_FROM] if legs_taken == 0 else moves[m, mg.M_PATH + legs_taken - 1]
    return frm, moves[m, mg.M_PATH + legs_taken]


@kernel(inline="always")
def write_leg_mask(tables, moves, n, turn, start_bit, legs_taken, path, mask, legal, legal_cap):
    """Set ``mask[a] = 1`` for every legal next leg ``a``; return how many distinct legs.

    ``mask`` must be all zeros on entry. The distinct legal actions are also
    written to ``legal[:legal_cap]`` (in move order), so that a caller can
    clear the mask or sample from it without scanning it.
    """
    count = 0
    for m in range(n):
        if not prefix_matches(moves, m, start_bit, legs_taken, path):
            continue
        frm, to = next_leg_bits(moves, m, legs_taken)
        a = leg_action(tables, frm, to, turn)
        if mask[a] == 0:
            mask[a] = 1
            if count < legal_cap:
                legal[count] = a
            count += 1
    return count


@kernel(inline="always")
def write_plain_mask(tables, params, state, mask, legal, legal_cap):
    """The mask of a position whose legal moves are all one-leg non-captures
    (no capture is possible), straight from the bitboards: no move list.

    Sets ``mask[a] = 1`` for every plain move of the side to move in ``state``
    (``mask`` must be all zeros), writes the actions to ``legal[:legal_cap]``
    and returns their number. Every plain move is one distinct leg, so no
    action is met twice. The moves are :func:`~checkers_env.core.movegen.generate_moves`'
    plain moves: men one square forward, kings one square any way, or any
    distance along an empty diagonal where kings fly.
    """
    turn = state[mg.S_TURN]
    h = params[mg.P_H]
    board = params[mg.P_MASK]
    own = state[mg.S_WHITE] if turn == 0 else state[mg.S_BLACK]
    occupied = state[mg.S_WHITE] | state[mg.S_BLACK]
    empty = board & ~occupied
    kings = state[mg.S_KINGS]
    men = own & ~kings
    own_kings = own & kings
    base = T_STEP_ACTION + turn * 256
    count = 0
    # The pieces that can step in direction d are those with an empty square one step
    # back from the empty squares; a constant d makes each shift one instruction.
    if turn == 0:
        movers_nw = men & step(empty, h, SE)
        movers_ne = men & step(empty, h, SW)
        movers_sw = 0
        movers_se = 0
    else:
        movers_nw = 0
        movers_ne = 0
        movers_sw = men & step(empty, h, NE)
        movers_se = men & step(empty, h, NW)
    if own_kings != 0 and params[mg.P_KINGS_FLY] == 0:
        movers_nw |= own_kings & step(empty, h, SE)
        movers_ne |= own_kings & step(empty, h, SW)
        movers_sw |= own_kings & step(empty, h, NE)
        movers_se |= own_kings & step(empty, h, NW)
    for d in range(4):
        movers = movers_nw if d == 0 else (movers_ne if d == 1 else (movers_sw if d == 2 else movers_se))
        while movers:
            b = lowest_bit(movers)
            movers &= movers - 1
            a = tables[base + b * 4 + d]
            mask[a] = 1
            if count < legal_cap:
                legal[count] = a
            count += 1
    if own_kings != 0 and params[mg.P_KINGS_FLY] == 1:
        ks = own_kings
        while ks:
            b = lowest_bit(ks)
            ks &= ks - 1
            for d in range(4):
                delta = direction_shift(h, d)
                a = tables[base + b * 4 + d]
                q = b + delta
                while on_board(empty, q):
                    mask[a] = 1
                    if count < legal_cap:
                        legal[count] = a
                    count += 1
                    a += 1
                    q += delta
    return count
