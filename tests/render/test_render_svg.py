"""SVG boards: valid XML, one disc per piece on dark squares, last move, must-capture rings, orientation."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from checkers_env.core import Board, variant_names
from checkers_env.core.notation import index_of_number, number_of_index, square_name
from checkers_env.render.svg import MARGIN, SQUARE_SIZE, board_to_svg

NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    return root


def with_class(root: ET.Element, tag: str, token: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{NS}{tag}") if token in e.get("class", "").split()]


def pieces(root, color=None, kind=None):
    out = with_class(root, "circle", "piece")
    if color:
        out = [e for e in out if color in e.get("class").split()]
    if kind:
        out = [e for e in out if kind in e.get("class").split()]
    return out


def rect_at(root: ET.Element, x: float, y: float) -> ET.Element:
    """The square (rect of class ``square``) containing the point."""
    for rect in with_class(root, "rect", "square"):
        rx, ry = float(rect.get("x")), float(rect.get("y"))
        if rx <= x < rx + SQUARE_SIZE and ry <= y < ry + SQUARE_SIZE:
            return rect
    raise AssertionError(f"no square at {x}, {y}")


@pytest.mark.parametrize("variant", variant_names())
def test_start_position_one_disc_per_man_all_on_dark_squares(variant):
    board = Board(variant)
    root = parse(board_to_svg(board))
    n = board.rules.board_size
    assert len(with_class(root, "rect", "square")) == n * n
    assert len(with_class(root, "rect", "dark")) == n * n // 2
    assert len(pieces(root, "white", "man")) == board.rules.men_per_side
    assert len(pieces(root, "black", "man")) == board.rules.men_per_side
    assert not pieces(root, kind="king") and not with_class(root, "polygon", "crown")
    for disc in pieces(root):
        assert "dark" in rect_at(root, float(disc.get("cx")), float(disc.get("cy"))).get("class").split()
    assert not with_class(root, "rect", "lastmove")  # no move played
    white_y = [float(d.get("cy")) for d in pieces(root, "white")]
    black_y = [float(d.get("cy")) for d in pieces(root, "black")]
    assert min(white_y) > max(black_y)  # White at the bottom
    coords = {e.text for e in with_class(root, "text", "coord")}
    assert {"a", str(n), "1"} <= coords


@pytest.mark.parametrize("variant", ["american", "international", "italian", "spanish"])
def test_square_one_is_drawn_where_the_variant_prints_it(variant):
    board = Board(variant)
    root = parse(board_to_svg(board))
    label = next(e for e in with_class(root, "text", "number") if e.text == "1")
    col = int((float(label.get("x")) - MARGIN) // SQUARE_SIZE)
    row = int((float(label.get("y")) - MARGIN) // SQUARE_SIZE)
    n = board.rules.board_size
    expected = {"american": (0, 1), "international": (0, 1), "italian": (0, 0), "spanish": (n - 1, n - 1)}[variant]
    assert (row, col) == expected
    assert len(with_class(root, "text", "number")) == board.rules.squares


def test_algebraic_variants_have_no_square_numbers_by_default():
    assert not with_class(parse(board_to_svg(Board("russian"))), "text", "number")
    assert len(with_class(parse(board_to_svg(Board("russian"), numbers=True)), "text", "number")) == 32


def test_last_move_is_marked_by_default_and_can_be_turned_off():
    board = Board("american")
    board.push("11-15")
    root = parse(board_to_svg(board))
    marks = with_class(root, "rect", "lastmove")
    assert len(marks) == 2
    assert len(with_class(root, "polyline", "route")) == 1
    number_positions = {e.text: (float(e.get("x")), float(e.get("y"))) for e in with_class(root, "text", "number")}
    marked = {(float(r.get("x")), float(r.get("y"))) for r in marks}
    for square in ("11", "15"):
        x, y = number_positions[square]
        assert any(mx <= x < mx + SQUARE_SIZE and my <= y < my + SQUARE_SIZE for mx, my in marked)
    assert not with_class(parse(board_to_svg(board, last_move=False)), "rect", "lastmove")


def test_multi_capture_marks_each_landing_and_crosses_the_captured():
    board = Board("international", fen="W:W32,33,K46:B28,19,8,K37")
    move = board.push("32x14")
    root = parse(board_to_svg(board))
    assert len(with_class(root, "rect", "lastmove")) == len(move.path) + 1 == 3
    assert len(with_class(root, "path", "captured")) == len(move.captures) == 2
    assert len(pieces(root)) == 5
    assert len(pieces(root, "black", "king")) == 1 and len(pieces(root, "white", "king")) == 1
    assert len(with_class(root, "polygon", "crown")) == 2


def test_pieces_that_must_capture_are_ringed():
    board = Board("american", fen="W:W27,K10,30:B23,15,1")
    root = parse(board_to_svg(board))
    rings = with_class(root, "circle", "must-capture")
    starts = {m.start for m in board.legal_moves()}
    assert len(rings) == len(starts) == 2
    assert not with_class(parse(board_to_svg(board, must_capture=False)), "circle", "must-capture")
    # Optional captures (house rule) and quiet positions ring nothing.
    house = Board("american", fen="W:W27,K10,30:B23,15,1", forced_capture=False)
    assert not with_class(parse(board_to_svg(house)), "circle", "must-capture")
    assert not with_class(parse(board_to_svg(Board("american"))), "circle", "must-capture")


def test_highlight_size_and_repr_svg():
    board = Board("american")
    root = parse(board_to_svg(board, size=256, highlight=["21", 16, "c5"]))
    assert len(with_class(root, "rect", "highlight")) == 3
    assert root.get("width") == root.get("height") == "256"
    assert parse(board_to_svg(board, size=None)).get("width") is None
    board.push("11-15")
    assert board._repr_svg_() == board_to_svg(board)


def test_flipped_puts_black_at_the_bottom():
    root = parse(board_to_svg(Board("american"), flipped=True))
    white_y = [float(d.get("cy")) for d in pieces(root, "white")]
    black_y = [float(d.get("cy")) for d in pieces(root, "black")]
    assert max(white_y) < min(black_y)


def test_without_coordinates_the_board_fills_the_picture():
    root = parse(board_to_svg(Board("czech"), coordinates=False))
    assert root.get("viewBox") == f"0 0 {8 * SQUARE_SIZE} {8 * SQUARE_SIZE}"
    assert not with_class(root, "text", "coord")


def test_mirrored_override_redraws_italian_on_the_reference_board():
    board = Board("italian")
    root = parse(board_to_svg(board, mirrored=False))
    label = next(e for e in with_class(root, "text", "number") if e.text == "1")
    assert int((float(label.get("x")) - MARGIN) // SQUARE_SIZE) == 7  # h8 on the a1-dark board
    assert index_of_number(board.rules, 1) == 3


def test_boards_side_by_side_with_captions():
    from checkers_env.render import boards_to_svg

    names = variant_names()
    svg = boards_to_svg([Board(v) for v in names], names, columns=3, size=150)
    assert hasattr(svg, "_repr_svg_") and svg._repr_svg_() == str(svg)
    root = parse(svg)
    boards = root.findall(f"{NS}svg")
    assert len(boards) == len(names)
    assert [e.text for e in with_class(root, "text", "caption")] == names
    assert len(pieces(root)) == sum(2 * Board(v).rules.men_per_side for v in names)
    xs = sorted({int(b.get("x")) for b in boards})
    assert len(xs) == 3  # three columns
    with pytest.raises(ValueError, match="captions"):
        boards_to_svg([Board()], ["a", "b"])
    with pytest.raises(TypeError, match="unknown option"):
        boards_to_svg([Board()], flip=True)
    no_coords = parse(boards_to_svg([Board(), Board()], coordinates=False))
    assert not with_class(no_coords, "text", "coord") and not with_class(no_coords, "text", "caption")


@pytest.mark.parametrize("variant", variant_names())
@pytest.mark.parametrize("flipped", [False, True])
def test_coordinates_spell_the_algebraic_name_of_every_square(variant, flipped):
    # The file letter drawn above a square's column and the rank beside its row
    # are the square's algebraic name (italian and spanish: on their mirrored board).
    board = Board(variant)
    rules = board.rules
    root = parse(board_to_svg(board, flipped=flipped, numbers=True))
    files = {float(e.get("x")): e.text for e in with_class(root, "text", "file")}
    ranks = {float(e.get("y")): e.text for e in with_class(root, "text", "rank")}
    numbers = {e.text: e for e in with_class(root, "text", "number")}
    for index in range(rules.squares):
        # The square's number is printed in its top-left corner.
        label = numbers[str(number_of_index(rules, index))]
        col = int((float(label.get("x")) - MARGIN) // SQUARE_SIZE)
        row = int((float(label.get("y")) - MARGIN) // SQUARE_SIZE)
        square = rect_at(root, MARGIN + col * SQUARE_SIZE + 1, MARGIN + row * SQUARE_SIZE + 1)
        assert "dark" in square.get("class").split()
        file = files[MARGIN + col * SQUARE_SIZE + SQUARE_SIZE / 2]
        rank = ranks[MARGIN + row * SQUARE_SIZE + SQUARE_SIZE / 2 + 4]
        assert file + rank == square_name(rules, index, "algebraic")
