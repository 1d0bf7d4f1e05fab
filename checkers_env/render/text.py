"""The board as plain text (PettingZoo's ``"ansi"`` render mode).

    >>> from checkers_env.core import Board
    >>> board = Board("american")
    >>> _ = board.push("11-15")
    >>> print(board_to_text(board))
         a  b  c  d  e  f  g  h
      8     b     b     b     b  8     .  1  .  2  .  3  .  4
      7  b     b     b     b     7     5  .  6  .  7  .  8  .
      6     b     b    [.]    b  6     .  9  . 10  . 11  . 12
      5  .     .    [b]    .     5    13  . 14  . 15  . 16  .
      4     .     .     .     .  4     . 17  . 18  . 19  . 20
      3  w     w     w     w     3    21  . 22  . 23  . 24  .
      2     w     w     w     w  2     . 25  . 26  . 27  . 28
      1  w     w     w     w     1    29  . 30  . 31  . 32  .
         a  b  c  d  e  f  g  h

``w``/``b`` are men, ``W``/``B`` kings, ``.`` an empty dark square; the last
move's start and landing squares are in brackets and the squares of the
pieces it captured show ``x``. On the right, for variants written with
numbers, each dark square's number. Orientation (White at the bottom, the
mirrored boards of italian and spanish) is explained in ``layout.py``.
"""

from __future__ import annotations

from ..core import WHITE, Board
from .layout import board_layout, resolve_last_move, square_number

__all__ = ["board_to_text"]

_CELL = 3


def board_to_text(
    board: Board,
    last_move=None,
    coordinates: bool = True,
    numbers: bool | None = None,
    flipped: bool = False,
    mirrored: bool | None = None,
) -> str:
    """Draw ``board`` as text, one line per rank.

    Args:
        board: the position to draw.
        last_move: the move to mark: ``None`` for the board's last move (if
            any), ``False`` for none, a ``Move``, or a sequence of squares
            (indices or names) such as a partial multi-capture.
        coordinates: print file letters above and below, rank numbers on both
            sides.
        numbers: print the variant's square numbers beside the board; by
            default when the variant writes squares as numbers.
        flipped: draw from Black's side.
        mirrored: draw the mirror image of the reference board; by default as
            the variant is played (italian and spanish mirrored).

    Returns:
        The board as lines of text joined by ``"\\n"``, without a final newline.
    """
    rules = board.rules
    layout = board_layout(rules, flipped, mirrored)
    n = rules.board_size
    marked = resolve_last_move(board, last_move)
    marked_squares = set(marked.squares) if marked else set()
    captured = set(marked.captures) if marked else set()
    if numbers is None:
        numbers = rules.notation == "numeric"

    symbols: dict[tuple[int, int], str] = {}
    labels: dict[tuple[int, int], str] = {}
    for index in range(rules.squares):
        cell = layout.cell(index)
        piece = board.piece_at(index)
        if piece is None:
            symbol = "x" if index in captured else "."
        else:
            color, king = piece
            symbol = "w" if color == WHITE else "b"
            symbol = symbol.upper() if king else symbol
        symbols[cell] = f"[{symbol}]" if index in marked_squares else f" {symbol} "
        labels[cell] = f"{square_number(rules, index):>2} "

    margin = "    " if coordinates else ""
    files = margin + "".join(f" {layout.file_label(col)} " for col in range(n))
    lines = [files.rstrip()] if coordinates else []
    for row in range(n):
        cells = "".join(symbols.get((row, col), " " * _CELL) for col in range(n))
        line = f"{layout.rank_label(row):>3} {cells} {layout.rank_label(row):<3}" if coordinates else cells
        if numbers:
            key = "".join(labels.get((row, col), " . ") for col in range(n))
            line += "  " + key
        lines.append(line.rstrip())
    if coordinates:
        lines.append(files.rstrip())
    return "\n".join(lines)
