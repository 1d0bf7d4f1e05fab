"""Where each square is drawn, and what a drawing marks: shared by every renderer.

The core works in the a1-dark reference frame (see ``core/geometry.py``):
square index 0 is b8, the top-left playable square as White sees the board.
Drawings show the board a player of the variant sees:

* **Mirrored boards.** Italian and spanish are played on the mirror image of
  the reference board (the near-left corner square is light, h1 is dark; PDN
  ``GameType`` invert flag ``1``, the last field of ``Rules.pdn_game_type``).
  They are drawn mirrored left to right, so that their square numbers read
  as their federations print them: italian 1 = a8 top-left, counting left to
  right; spanish 1 = h1 bottom-right, counting right to left. The file
  letters along the edge are those of the real board (``a`` on White's
  left), and the core names squares algebraically on that same board
  (``core/notation.py``): the coordinates beside a square spell its
  algebraic name in every variant, flipped or not.
* **Flipped.** ``flipped=True`` turns the board 180 degrees (Black's view).

White (the side whose men start on the low ranks) is at the bottom unless
flipped. Screen cells are ``(row, col)`` with ``(0, 0)`` the top-left corner.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..core import Board, InvalidSquareError, Move, Rules
from ..core.geometry import FILES, geometry
from ..core.notation import is_mirrored, number_of_index

__all__ = [
    "Layout",
    "board_layout",
    "is_mirrored",
    "MarkedMove",
    "resolve_last_move",
    "must_capture_squares",
    "resolve_squares",
    "square_number",
    "COLORS",
    "CROWN",
]


@dataclass(frozen=True)
class Layout:
    """Screen placement of a board's squares.

    ``cell(index)`` gives the ``(row, col)`` on screen of a square index, and
    ``file_label(col)`` / ``rank_label(row)`` the coordinate letters and digits
    printed along the edges.
    """

    size: int
    """Squares along one side (8 or 10)."""
    mirrored: bool
    """Drawn as the mirror image of the reference board (italian, spanish)."""
    flipped: bool
    """Turned 180 degrees: Black at the bottom."""
    names_mirrored: bool | None = None
    """Whether the variant's algebraic names are those of the mirrored board
    (``None``: as ``mirrored``). Differs from ``mirrored`` only when a board is
    drawn the other way than it is played; the file letters still spell the
    algebraic names of the squares below them."""

    def cell(self, index: int) -> tuple[int, int]:
        """``(row, col)`` on screen of a square index, ``(0, 0)`` top-left."""
        g = geometry(self.size)
        row, col = int(g.row[index]), int(g.file[index])
        if self.mirrored:
            col = self.size - 1 - col
        if self.flipped:
            row, col = self.size - 1 - row, self.size - 1 - col
        return row, col

    def is_dark(self, row: int, col: int) -> bool:
        """Whether the screen cell is a playable (dark) square."""
        # Reference frame: a1 dark, i.e. (row from top + file) odd. Mirroring
        # changes the parity of the column; turning by 180 degrees keeps it.
        return (row + col + (1 if self.mirrored else 0)) % 2 == 1

    def file_label(self, col: int) -> str:
        """Letter of a screen column: the file of the algebraic names of its squares
        (``a`` at White's left when the board is drawn as it is played)."""
        file = self.size - 1 - col if self.flipped else col  # file of the drawing, from White's left
        names_mirrored = self.mirrored if self.names_mirrored is None else self.names_mirrored
        if names_mirrored != self.mirrored:
            file = self.size - 1 - file
        return FILES[file]

    def rank_label(self, row: int) -> str:
        """Rank number of a screen row (1 at White's side)."""
        return str(row + 1 if self.flipped else self.size - row)


def board_layout(rules: Rules, flipped: bool = False, mirrored: bool | None = None) -> Layout:
    """The layout of a board; ``mirrored=None`` follows the variant (see module docstring)."""
    played = is_mirrored(rules)
    return Layout(rules.board_size, played if mirrored is None else bool(mirrored), bool(flipped), played)


def square_number(rules: Rules, index: int) -> int:
    """The variant's numeric square of an index (what numbered diagrams print)."""
    return number_of_index(rules, index)


@dataclass(frozen=True)
class MarkedMove:
    """The squares of a move to mark: where it started, landed, and what it took."""

    squares: tuple[int, ...]
    """Start, then every landing square, in order (indices)."""
    captures: tuple[int, ...] = ()
    """Indices of the captured pieces."""


def resolve_last_move(board: Board, last_move) -> MarkedMove | None:
    """What to mark as the last move.

    ``None``: the board's last move (``board.peek()``) if one was played;
    ``False``: nothing; a :class:`Move`; or a sequence of square indices or
    square names (a partial multi-capture, for instance). Raises
    ``TypeError`` for anything else and ``InvalidSquareError`` for bad squares.
    """
    if last_move is False:
        return None
    if last_move is None:
        if not board.move_stack:
            return None
        last_move = board.peek()
    if isinstance(last_move, Move):
        return MarkedMove((last_move.start, *last_move.path), tuple(last_move.captures))
    if isinstance(last_move, str) or not isinstance(last_move, Iterable):
        raise TypeError(
            f"last_move must be a Move, a sequence of squares, None (the board's last move) or False, got {last_move!r}"
        )
    squares = resolve_squares(board, last_move)
    return MarkedMove(squares) if squares else None


def resolve_squares(board: Board, squares: Iterable) -> tuple[int, ...]:
    """Square indices of an iterable of indices or square names (variant notation or algebraic)."""
    out = []
    for sq in squares:
        if isinstance(sq, str):
            out.append(board.parse_square(sq))
        else:
            index = int(sq)
            if not 0 <= index < board.rules.squares:
                raise InvalidSquareError(f"square index {index} is off the board (0-{board.rules.squares - 1})")
            out.append(index)
    return tuple(out)


def must_capture_squares(board: Board) -> tuple[int, ...]:
    """Indices of the pieces that must capture: the starts of the legal moves
    when capturing is compulsory and the legal moves are captures (every legal
    move is then a capture); empty otherwise or when the game is over."""
    if not board.rules.forced_capture:
        return ()
    moves = board.legal_moves()
    if not moves or not moves[0].captures:
        return ()
    return tuple(sorted({m.start for m in moves}))


COLORS: dict[str, str] = {
    "light": "#ffce9e",
    "dark": "#d18b47",
    "last_move": "#aaa23b",
    "highlight": "#5d8fc4",
    "margin": "#212121",
    "coord": "#e5e5e5",
    "number": "#fff2e0",
    "white_piece": "#f6f3ea",
    "white_edge": "#3a3a3a",
    "white_ring": "#b9b3a5",
    "black_piece": "#2a2a2a",
    "black_edge": "#0a0a0a",
    "black_ring": "#5c5c5c",
    "crown": "#e8b923",
    "crown_edge": "#6b4f00",
    "must_capture": "#e0241b",
    "captured": "#8b1a10",
    "path": "#3b5d1a",
}
"""The palette every drawing uses (python-chess's board colours)."""

# A crown in units of the piece radius, centred on the piece: three points
# over a band. Shared by the SVG and the raster drawings.
CROWN: tuple[tuple[float, float], ...] = (
    (-0.52, 0.32),
    (0.52, 0.32),
    (0.52, -0.30),
    (0.26, 0.02),
    (0.0, -0.42),
    (-0.26, 0.02),
    (-0.52, -0.30),
)
