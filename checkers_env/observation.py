"""Observation planes: what an agent sees, in its own frame.

An observation is ``float32[NUM_PLANES, N, N]`` (N = 8 or 10) over the whole
board, light squares always 0. Planes, seen from the observing player's side
(for Black the board is turned half a turn, as the action encoding does, so
the observer's men always start at the bottom and move up)::

    plane  content                                             values
    0      observer's men                                      0/1
    1      observer's kings                                    0/1
    2      opponent's men                                      0/1
    3      opponent's kings                                    0/1
    4      the piece that must continue its capture            0/1 (one cell, or none)
    5      pieces captured by the legs taken so far in this    0/1
           move; they stay on planes 0-3 until the move ends
    6      draw counter: plies without capture / draw_plies    constant plane in [0, 1]
           (0 when the variant has no draw rule)
    7      move number: plies since the episode began          constant plane in [0, 1]
           / ply_scale, capped at 1 (ply_scale = max_moves
           if set, else 200)

Cell ``[row, file]`` is row from the observer's far side and file from the
observer's left; the square with index ``i`` (geometry.py) is at
``(row[i], file[i])`` for White and ``(row[j], file[j])`` with
``j = squares - 1 - i`` for Black. On 8x8 seen by the mover::

    file  0  1  2  3  4  5  6  7
    row 0 .  0  .  1  .  2  .  3      <- opponent's men start here
    row 1 4  .  5  .  6  .  7  .
    ...
    row 7 28 .  29 .  30 .  31 .      <- observer's men start here

While a capture is in progress (legs taken, move not complete) the board
planes show the position before the move, except that the moving piece is
drawn on the square where its last leg landed (plane 4 marks it).
"""

from __future__ import annotations

import numpy as np

from .core import movegen as mg
from .core.jit import kernel
from .encoding import T_CELL_BIT, T_SIZE

__all__ = [
    "NUM_PLANES",
    "PLY_SCALE",
    "KING_MATERIAL",
    "observation_shape",
    "write_planes",
    "PLANE_NAMES",
    "material_lead",
]

NUM_PLANES = 8
PLY_SCALE = 200
"""Plies that fill the move-number plane when no ``max_moves`` is set."""

KING_MATERIAL = 1.5
"""What a king counts in a material count in which a man counts 1 (self-play's adjudication, the
material targets, the search's material estimate)."""

PLANE_NAMES = (
    "own men",
    "own kings",
    "opponent men",
    "opponent kings",
    "piece to continue",
    "captured this move",
    "draw counter",
    "move number",
)


def observation_shape(board_size: int) -> tuple[int, int, int]:
    """``(NUM_PLANES, N, N)``."""
    return (NUM_PLANES, board_size, board_size)


@kernel
def write_planes(tables, state, perspective, moving_from, moving_at, captured, draw_plies, ply_scale, ply, out):
    """Fill ``out`` (``float32[NUM_PLANES, N, N]``, C-contiguous) with the planes seen by ``perspective``.

    ``state`` is the committed position (movegen layout); ``moving_from`` /
    ``moving_at`` are the padded bits where the piece in mid-capture started
    and stands now (-1 when no move is in progress) and ``captured`` the
    bitboard of pieces jumped so far. ``ply`` feeds the move-number plane.
    """
    white = state[mg.S_WHITE]
    black = state[mg.S_BLACK]
    kings = state[mg.S_KINGS]
    if moving_from >= 0 and moving_at != moving_from:
        moved = (1 << moving_from) | (1 << moving_at)
        if ((white >> moving_from) & 1) == 1:
            white ^= moved
        else:
            black ^= moved
        if ((kings >> moving_from) & 1) == 1:
            kings ^= moved
    own = white if perspective == 0 else black
    opponent = black if perspective == 0 else white
    own_men = own & ~kings
    own_kings = own & kings
    opponent_men = opponent & ~kings
    opponent_kings = opponent & kings
    at = (1 << moving_at) if moving_at >= 0 else 0
    clock = 0.0
    if draw_plies > 0:
        clock = min(1.0, state[mg.S_CLOCK] / draw_plies)
    number = min(1.0, ply / ply_scale)
    cells = tables[T_SIZE] * tables[T_SIZE]
    base = T_CELL_BIT + perspective * 100
    flat = out.reshape(-1)
    cell_bits = tables[base : base + cells]
    # Every cell of every plane is written (no clearing pass), each from a shift of
    # a bitboard by the square's bit: branch-free loops, one plane each, that the
    # compiler vectorises.
    _spread(flat[:cells], own_men, cell_bits)
    _spread(flat[cells : 2 * cells], own_kings, cell_bits)
    _spread(flat[2 * cells : 3 * cells], opponent_men, cell_bits)
    _spread(flat[3 * cells : 4 * cells], opponent_kings, cell_bits)
    _spread(flat[4 * cells : 5 * cells], at, cell_bits)
    _spread(flat[5 * cells : 6 * cells], captured, cell_bits)
    flat[6 * cells : 7 * cells] = clock
    flat[7 * cells : 8 * cells] = number


@kernel(inline="always")
def _spread(plane, bitboard, cell_bits):
    """``plane[c] = 1`` where ``bitboard`` has the bit of cell ``c``, else 0."""
    for c in range(plane.shape[0]):
        plane[c] = (bitboard >> cell_bits[c]) & 1


def planes_of(board, perspective: int | None = None, ply_scale: int = PLY_SCALE) -> np.ndarray:
    """Observation planes of a :class:`~checkers_env.core.Board` (no move in progress),
    seen by ``perspective`` (0 White, 1 Black; default the side to move)."""
    from .encoding import make_tables

    size = board.rules.board_size
    out = np.zeros(observation_shape(size), dtype=np.float32)
    who = int(board.turn) if perspective is None else int(perspective)
    write_planes(make_tables(size), board.state, who, -1, -1, 0, board.rules.draw_plies, ply_scale, board.ply, out)
    return out


def material_lead(planes: np.ndarray) -> np.ndarray:
    """The observer's material lead (man 1, king :data:`KING_MATERIAL`) in observation planes:
    ``float32[...]`` for planes ``float32[..., NUM_PLANES, N, N]``. Pieces already jumped in a
    capture in progress (plane 5) count as gone."""
    planes = np.asarray(planes)
    if planes.ndim < 3 or planes.shape[-3] != NUM_PLANES:
        raise ValueError(f"planes must be [..., {NUM_PLANES}, N, N], got shape {planes.shape}")
    men, kings, their_men, their_kings = (planes[..., i, :, :].astype(np.float32) for i in range(4))
    standing = 1.0 - planes[..., 5, :, :].astype(np.float32)
    own = men.sum((-2, -1)) + KING_MATERIAL * kings.sum((-2, -1))
    opponent = (their_men * standing).sum((-2, -1)) + KING_MATERIAL * (their_kings * standing).sum((-2, -1))
    return (own - opponent).astype(np.float32)
