"""Text boards: coordinates, piece counts, square numbers, last-move marks, orientation."""

from __future__ import annotations

import pytest

from checkers_env.core import Board, variant_names
from checkers_env.core.geometry import FILES
from checkers_env.core.notation import index_of_number, square_name
from checkers_env.render.layout import board_layout
from checkers_env.render.text import board_to_text

CELL = 3
LEFT = 4  # rank label (3 wide) and a space


def board_cells(text: str, size: int) -> list[list[str]]:
    """The 3-character cells of each rank line of a text board drawn with coordinates."""
    lines = text.splitlines()[1 : 1 + size]
    return [[line[LEFT + CELL * c : LEFT + CELL * (c + 1)] for c in range(size)] for line in lines]


def symbols(text: str, size: int) -> list[str]:
    return [cell.strip("[] ") for row in board_cells(text, size) for cell in row]


@pytest.mark.parametrize("variant", variant_names())
def test_start_position_has_coordinates_and_every_man(variant):
    board = Board(variant)
    n = board.rules.board_size
    text = board_to_text(board)
    lines = text.splitlines()
    assert len(lines) == n + 2
    assert lines[0].split() == list(FILES[:n]) == lines[-1].split()
    for row, line in enumerate(lines[1:-1]):
        rank = str(n - row)
        assert line.split()[0] == rank
        assert line[LEFT + CELL * n :].split()[0] == rank
    cells = symbols(text, n)
    assert cells.count("w") == board.rules.men_per_side
    assert cells.count("b") == board.rules.men_per_side
    assert cells.count(".") == board.rules.squares - 2 * board.rules.men_per_side
    assert "[" not in text  # no move played yet


@pytest.mark.parametrize("variant", variant_names())
def test_square_numbers_beside_numeric_variants(variant):
    board = Board(variant)
    text = board_to_text(board)
    n = board.rules.board_size
    key = [line[LEFT + CELL * n :].split()[1:] for line in text.splitlines()[1:-1]]
    numbers = sorted(int(tok) for row in key for tok in row if tok.isdigit())
    if board.rules.notation == "numeric":
        assert numbers == list(range(1, board.rules.squares + 1))
    else:
        assert numbers == []
    plain = board_to_text(board, numbers=False).splitlines()
    assert [line[: LEFT + CELL * n] for line in plain] == [line[: LEFT + CELL * n] for line in text.splitlines()]
    assert all(len(line) <= LEFT + CELL * n + 4 for line in plain)


@pytest.mark.parametrize(
    ("variant", "cell_of_square_1"),
    [
        ("american", (0, 1)),  # b8: top-left playable square, numbering left to right
        ("international", (0, 1)),
        ("pool", (0, 1)),
        ("italian", (0, 0)),  # mirrored board: a8, counting left to right
        ("spanish", (7, 7)),  # mirrored board: h1, counting right to left from White's side
    ],
)
def test_square_one_is_where_the_variant_prints_it(variant, cell_of_square_1):
    board = Board(variant)
    layout = board_layout(board.rules)
    index = index_of_number(board.rules, 1)
    assert layout.cell(index) == cell_of_square_1
    assert layout.is_dark(*cell_of_square_1)
    n = board.rules.board_size
    key_line = board_to_text(board).splitlines()[1 + cell_of_square_1[0]]
    key_cells = [key_line[LEFT + CELL * n + 6 + CELL * c : LEFT + CELL * n + 6 + CELL * (c + 1)] for c in range(n)]
    assert key_cells[cell_of_square_1[1]].strip() == "1"


def test_last_move_start_and_end_are_bracketed():
    board = Board("american")
    board.push("11-15")
    cells = board_cells(board_to_text(board), 8)
    layout = board_layout(board.rules)
    start = layout.cell(board.parse_square("11"))
    end = layout.cell(board.parse_square("15"))
    assert cells[start[0]][start[1]] == "[.]"
    assert cells[end[0]][end[1]] == "[b]"
    assert sum(cell.startswith("[") for row in cells for cell in row) == 2
    assert "[" not in board_to_text(board, last_move=False)


def test_multi_capture_marks_route_and_captured_squares():
    board = Board("american", fen="W:W27,K10:B23,15,1")
    move = board.push("27x11")
    text = board_to_text(board)
    cells = board_cells(text, 8)
    layout = board_layout(board.rules)
    marked = [(r, c) for r in range(8) for c in range(8) if cells[r][c].startswith("[")]
    assert sorted(marked) == sorted(layout.cell(i) for i in (move.start, *move.path))
    crossed = [(r, c) for r in range(8) for c in range(8) if cells[r][c] == " x "]
    assert sorted(crossed) == sorted(layout.cell(i) for i in move.captures)
    assert symbols(text, 8).count("W") == 1  # the king on 10
    assert symbols(text, 8).count("b") == 1


def test_explicit_partial_route_is_marked():
    board = Board("american", fen="W:W27:B23,15")
    text = board_to_text(board, last_move=["27", 18])
    assert sum(cell.startswith("[") for row in board_cells(text, 8) for cell in row) == 2
    with pytest.raises(TypeError):
        board_to_text(board, last_move="27x18")
    with pytest.raises(ValueError):
        board_to_text(board, last_move=[99])


def test_flipped_puts_rank_one_and_white_on_top():
    board = Board("international")
    text = board_to_text(board, flipped=True)
    lines = text.splitlines()
    assert lines[0].split() == list(reversed(FILES[:10]))
    assert lines[1].split()[0] == "1"
    cells = board_cells(text, 10)
    assert {c.strip() for c in cells[0]} == {"", "w"}
    assert {c.strip() for c in cells[-1]} == {"", "b"}


def test_without_coordinates_only_the_board_is_drawn():
    board = Board("russian")
    text = board_to_text(board, coordinates=False)
    lines = text.splitlines()
    assert len(lines) == 8
    assert not any(ch.isdigit() for ch in text)
    assert sum(line.count("w") for line in lines) == 12


@pytest.mark.parametrize("variant", variant_names())
@pytest.mark.parametrize("flipped", [False, True])
@pytest.mark.parametrize("mirrored", [None, True, False])
def test_coordinates_spell_the_algebraic_name_of_every_square(variant, flipped, mirrored):
    # Above all on the mirrored italian and spanish boards: the letter above a
    # square's column and the digit beside its row are its algebraic name, which
    # a FEN written with notation="algebraic" uses.
    board = Board(variant)
    rules = board.rules
    n = rules.board_size
    lines = board_to_text(board, flipped=flipped, mirrored=mirrored).splitlines()
    layout = board_layout(rules, flipped, mirrored)
    for index in range(rules.squares):
        row, col = layout.cell(index)
        file = lines[0][LEFT + CELL * col + 1]
        assert lines[-1][LEFT + CELL * col + 1] == file
        rank = lines[1 + row][:3].strip()
        assert lines[1 + row][LEFT + CELL * n :].split()[0] == rank
        assert file + rank == square_name(rules, index, "algebraic")
        assert board.parse_square(file + rank) == index
