"""RGB boards drawn with Pillow: shape, dtype, orientation, last move, determinism."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PIL")

from checkers_env.core import Board, variant_names  # noqa: E402
from checkers_env.render.image import board_to_rgb  # noqa: E402
from checkers_env.render.layout import COLORS, board_layout  # noqa: E402


def rgb(hex_color: str) -> np.ndarray:
    return np.array([int(hex_color[i : i + 2], 16) for i in (1, 3, 5)], dtype=int)


def pixel_at_cell(image: np.ndarray, cell: tuple[int, int], n: int, at: float = 0.5, margin_share=0.045) -> np.ndarray:
    """A pixel of a screen cell (``at``: 0.5 the centre, 0.15 near its top-left corner), for a board
    drawn with coordinates."""
    size = image.shape[0]
    margin = size * margin_share
    sq = (size - 2 * margin) / n
    row, col = cell
    return image[int(margin + (row + at) * sq), int(margin + (col + at) * sq)].astype(int)


def close(a: np.ndarray, b: np.ndarray, tol: int = 24) -> bool:
    return bool(np.abs(a - b).max() <= tol)


@pytest.mark.parametrize("variant", variant_names())
def test_shape_dtype_and_start_position_pieces(variant):
    board = Board(variant)
    image = board_to_rgb(board, size=240)
    assert image.shape == (240, 240, 3)
    assert image.dtype == np.uint8
    layout = board_layout(board.rules)
    n = board.rules.board_size
    # The centre of a man shows the piece colour (inside the inner ring).
    white_square = layout.cell(board.pieces(0)[0])
    black_square = layout.cell(board.pieces(1)[0])
    assert close(pixel_at_cell(image, white_square, n), rgb(COLORS["white_piece"]))
    assert close(pixel_at_cell(image, black_square, n), rgb(COLORS["black_piece"]))
    # White at the bottom: the bottom-row pieces are white.
    assert white_square[0] > black_square[0]


def test_bottom_left_corner_is_dark_except_on_mirrored_boards():
    for variant, dark in (("american", True), ("international", True), ("italian", False), ("spanish", False)):
        board = Board(variant, fen="W:W:B")  # empty board: only squares
        image = board_to_rgb(board, size=200)
        n = board.rules.board_size
        expected = COLORS["dark" if dark else "light"]
        assert close(pixel_at_cell(image, (n - 1, 0), n), rgb(expected), tol=6), variant


def test_image_changes_after_a_move_and_marks_it():
    board = Board("american")
    before = board_to_rgb(board, size=200)
    board.push("11-15")
    after = board_to_rgb(board, size=200)
    assert not np.array_equal(before, after)
    start = board_layout(board.rules).cell(board.parse_square("11"))
    assert close(pixel_at_cell(after, start, 8, at=0.15), rgb(COLORS["last_move"]), tol=6)
    unmarked = board_to_rgb(board, size=200, last_move=False)
    assert close(pixel_at_cell(unmarked, start, 8, at=0.15), rgb(COLORS["dark"]), tol=6)
    assert np.array_equal(after, board_to_rgb(board, size=200))  # deterministic


def test_kings_get_a_crown_and_options_change_the_picture():
    board = Board("american", fen="W:WK18:B14")
    image = board_to_rgb(board, size=200)
    king = board_layout(board.rules).cell(board.parse_square("18"))
    assert close(pixel_at_cell(image, king, 8), rgb(COLORS["crown"]), tol=40)
    assert not np.array_equal(image, board_to_rgb(board, size=200, flipped=True))
    assert not np.array_equal(image, board_to_rgb(board, size=200, highlight=[0]))
    plain = board_to_rgb(board, size=200, coordinates=False)
    assert plain.shape == (200, 200, 3)
    assert not np.array_equal(image, plain)


def test_too_small_an_image_is_refused():
    with pytest.raises(ValueError, match="at least 16"):
        board_to_rgb(Board(), size=8)
