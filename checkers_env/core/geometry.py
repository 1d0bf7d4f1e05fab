"""Board geometry: square indices, bit positions, directions, algebraic names.

Every module that needs to know where a square is asks this one.

Square index (0-based, what code uses) counts the playable squares of an
a1-dark board row by row from the top (Black's side), left to right as White
sees it. It is the international / american PDN number minus one::

    8x8 (index = PDN square - 1)            bit position (padded, one ghost
                                            bit after every two rows)
       a  b  c  d  e  f  g  h
    8  .  0  .  1  .  2  .  3              0  1  2  3
    7  4  .  5  .  6  .  7  .              4  5  6  7      (8 is a ghost)
    6  .  8  .  9  . 10  . 11              9 10 11 12
    5 12  . 13  . 14  . 15  .             13 14 15 16      (17 ghost)
    4  . 16  . 17  . 18  . 19             18 19 20 21
    3 20  . 21  . 22  . 23  .             22 23 24 25      (26 ghost)
    2  . 24  . 25  . 26  . 27             27 28 29 30
    1 28  . 29  . 30  . 31  .             31 32 33 34

White's men start on the low ranks (indices 20..31 on 8x8, 30..49 on 10x10)
and move up (toward index 0); Black's move down.

Bitboards use the padded bit position ``bit = index + index // (2*H)``
(``H`` = playable squares per row, 4 or 5). With the ghost bit every two
rows, each diagonal direction is one constant shift (a trick of the Scan /
Kingsrow engines), so a whole side's steps are one shift and mask::

    NW = -(H+1)   NE = -H          (toward the top, White's forward)
    SW = +H       SE = +(H+1)      (toward the bottom, Black's forward)

A step that leaves the board lands on a ghost bit or outside the mask.

The compiled kernels below are the one home of these shifts and of which
directions are "forward": the move generator, the action encoding and the
search all step pieces through them.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .errors import InvalidSquareError
from .jit import kernel

__all__ = [
    "Geometry",
    "geometry",
    "DIRECTION_NAMES",
    "NW",
    "NE",
    "SW",
    "SE",
    "direction_shift",
    "shift",
    "step",
    "on_board",
    "is_forward",
    "opposite",
]

NW, NE, SW, SE = 0, 1, 2, 3
DIRECTION_NAMES = ("NW", "NE", "SW", "SE")
FILES = "abcdefghij"


@kernel(inline="always")
def direction_shift(per_row, direction):
    """Padded-bit offset of one diagonal step: NW ``-(H+1)``, NE ``-H``, SW ``+H``, SE ``+(H+1)``
    (``per_row`` = H, playable squares per row)."""
    if direction == NW:
        return -(per_row + 1)
    if direction == NE:
        return -per_row
    if direction == SW:
        return per_row
    return per_row + 1


@kernel(inline="always")
def shift(bitboard, delta):
    """``bitboard`` moved by ``delta`` padded bit positions (up the board for a negative ``delta``)."""
    if delta > 0:
        return bitboard << delta
    return bitboard >> (-delta)


@kernel(inline="always")
def step(bitboard, per_row, direction):
    """Every square of ``bitboard`` moved one diagonal step in ``direction``; squares that leave
    the board land on ghost bits or outside the board mask, which the caller masks off."""
    return shift(bitboard, direction_shift(per_row, direction))


@kernel(inline="always")
def on_board(mask, bit):
    """Whether padded bit position ``bit`` is a square of the board ``mask``."""
    return bit >= 0 and bit < 63 and ((mask >> bit) & 1) == 1


@kernel(inline="always")
def is_forward(color, direction):
    """Whether ``direction`` is forward for ``color``'s men (0 White: NW/NE, toward index 0;
    1 Black: SW/SE)."""
    return (direction < SW) == (color == 0)


@kernel(inline="always")
def opposite(direction):
    """The reverse direction (NW <-> SE, NE <-> SW)."""
    return 3 - direction


class Geometry:
    """Fixed facts about one board size. Use :func:`geometry` to get the shared instance."""

    def __init__(self, board_size: int):
        if board_size not in (8, 10):
            raise ValueError(f"board_size must be 8 or 10, got {board_size}")
        self.size = board_size
        self.per_row = board_size // 2
        self.squares = board_size * board_size // 2
        h = self.per_row
        self.bit_of_index = np.array([i + i // (2 * h) for i in range(self.squares)], dtype=np.int64)
        self.index_of_bit = np.full(64, -1, dtype=np.int64)
        self.index_of_bit[self.bit_of_index] = np.arange(self.squares)
        self.mask = int(sum(1 << int(b) for b in self.bit_of_index))
        self.deltas = tuple(direction_shift.py_func(h, d) for d in range(4))
        # (row from the top, file from the left) of each index, on the a1-dark board.
        self.row = np.array([i // h for i in range(self.squares)], dtype=np.int64)
        self.file = np.array(
            [2 * (i % h) + (1 if (i // h) % 2 == 0 else 0) for i in range(self.squares)], dtype=np.int64
        )
        self._index_at = {(int(r), int(f)): i for i, (r, f) in enumerate(zip(self.row, self.file))}
        self.top_row_bits = sum(1 << int(self.bit_of_index[i]) for i in range(h))
        self.bottom_row_bits = sum(1 << int(self.bit_of_index[i]) for i in range(self.squares - h, self.squares))
        self.algebraic_names = tuple(self._algebraic(i) for i in range(self.squares))
        self._index_of_algebraic = {name: i for i, name in enumerate(self.algebraic_names)}

    def _algebraic(self, index: int) -> str:
        rank = self.size - int(self.row[index])
        return f"{FILES[int(self.file[index])]}{rank}"

    def index_at(self, row: int, file: int) -> int | None:
        """Index of the square at (row from the top, file from the left), or None
        if that square is off the board or light."""
        return self._index_at.get((row, file))

    def neighbour(self, index: int, direction: int, distance: int = 1) -> int | None:
        """Index reached from ``index`` by ``distance`` diagonal steps, or None off the board."""
        dr = -1 if direction in (NW, NE) else 1
        df = -1 if direction in (NW, SW) else 1
        return self.index_at(int(self.row[index]) + dr * distance, int(self.file[index]) + df * distance)

    def direction_between(self, a: int, b: int) -> tuple[int, int] | None:
        """(direction, distance) of the diagonal from ``a`` to ``b``, or None if not on one diagonal."""
        dr = int(self.row[b] - self.row[a])
        df = int(self.file[b] - self.file[a])
        if dr == 0 or abs(dr) != abs(df):
            return None
        direction = (NW if df < 0 else NE) if dr < 0 else (SW if df < 0 else SE)
        return direction, abs(dr)

    def between(self, a: int, b: int) -> list[int]:
        """Indices strictly between ``a`` and ``b`` on their diagonal."""
        d = self.direction_between(a, b)
        if d is None:
            raise ValueError(f"squares {a} and {b} are not on one diagonal")
        return [self.neighbour(a, d[0], k) for k in range(1, d[1])]

    def index_of_algebraic(self, name: str) -> int:
        """Index of an algebraic square name such as ``"c3"`` (a1-dark board)."""
        key = name.strip().lower()
        if key not in self._index_of_algebraic:
            raise InvalidSquareError(
                f"{name!r} is not a playable square of the {self.size}x{self.size} board "
                f"(files a-{FILES[self.size - 1]}, ranks 1-{self.size}, dark squares with a1 dark)"
            )
        return self._index_of_algebraic[key]

    def bits(self, indices) -> int:
        """Bitboard (padded bits) of some square indices."""
        out = 0
        for i in indices:
            out |= 1 << int(self.bit_of_index[i])
        return out

    def indices(self, bitboard: int) -> list[int]:
        """Square indices of the set bits of a bitboard, ascending."""
        out = []
        b = int(bitboard)
        while b:
            low = b & -b
            out.append(int(self.index_of_bit[low.bit_length() - 1]))
            b ^= low
        return out

    def mirror_index(self, index: int) -> int:
        """The square seen from the other side (rotated 180 degrees)."""
        return self.squares - 1 - index

    def flip_files_index(self, index: int) -> int:
        """The square mirrored left-right within its row (the mirrored board's numbering)."""
        h = self.per_row
        return (index // h) * h + (h - 1 - index % h)


@cache
def geometry(board_size: int) -> Geometry:
    """The shared :class:`Geometry` for a board size (8 or 10)."""
    return Geometry(board_size)
