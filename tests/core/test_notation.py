"""Square numbering, FEN and move text per variant (PDN 3.0).

Algebraic names are read on the board as it is drawn, seen from White (see
checkers_env/core/notation.py): a1 dark, except on the mirrored italian and
spanish boards, where h1 is dark and the files run the other way round the
core's reference board.
"""

from __future__ import annotations

import pytest

from checkers_env.core import BLACK, WHITE, Board, InvalidFenError, get_rules, variant_names
from checkers_env.core.notation import (
    index_of_number,
    number_of_index,
    parse_fen,
    parse_square,
    square_name,
    start_fen,
)

EIGHT = [v for v in variant_names() if get_rules(v).board_size == 8]


@pytest.mark.parametrize(
    ("variant", "number", "name"),
    [
        ("american", 1, "b8"),
        ("american", 4, "h8"),
        ("american", 5, "a7"),
        ("american", 29, "a1"),
        ("american", 32, "g1"),
        ("pool", 1, "b8"),
        ("russian", 1, "b8"),
        ("czech", 32, "g1"),
        # italian (mirrored board, h1 dark): square 1 is a8, counting left to right.
        ("italian", 1, "a8"),
        ("italian", 4, "g8"),
        ("italian", 5, "b7"),
        ("italian", 32, "h1"),
        # spanish (mirrored board): square 1 is h1, counting right to left and upwards.
        ("spanish", 1, "h1"),
        ("spanish", 4, "b1"),
        ("spanish", 5, "g2"),
        ("spanish", 32, "a8"),
        ("international", 1, "b10"),
        ("international", 5, "j10"),
        ("international", 6, "a9"),
        ("international", 46, "a1"),
        ("international", 50, "i1"),
    ],
)
def test_square_numbering(variant, number, name):
    rules = get_rules(variant)
    index = index_of_number(rules, number)
    assert square_name(rules, index, "algebraic") == name
    assert square_name(rules, index, "numeric") == str(number)
    assert parse_square(rules, name) == parse_square(rules, str(number)) == index


@pytest.mark.parametrize("variant", variant_names())
def test_numbering_is_a_bijection_in_both_notations(variant):
    rules = get_rules(variant)
    numbers = [number_of_index(rules, i) for i in range(rules.squares)]
    assert sorted(numbers) == list(range(1, rules.squares + 1))
    names = {square_name(rules, i, "algebraic") for i in range(rules.squares)}
    assert len(names) == rules.squares
    for index in range(rules.squares):
        for notation in ("numeric", "algebraic"):
            assert parse_square(rules, square_name(rules, index, notation)) == index
        assert parse_square(rules, square_name(rules, index, "algebraic").upper()) == index


START = {
    "american": "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "pool": "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "russian": "W:Wa1,a3,b2,c1,c3,d2,e1,e3,f2,g1,g3,h2:Ba7,b6,b8,c7,d6,d8,e7,f6,f8,g7,h6,h8",
    "brazilian": "W:Wa1,a3,b2,c1,c3,d2,e1,e3,f2,g1,g3,h2:Ba7,b6,b8,c7,d6,d8,e7,f6,f8,g7,h6,h8",
    "czech": "W:Wa1,a3,b2,c1,c3,d2,e1,e3,f2,g1,g3,h2:Ba7,b6,b8,c7,d6,d8,e7,f6,f8,g7,h6,h8",
    "italian": "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "spanish": "W:W1,2,3,4,5,6,7,8,9,10,11,12:B21,22,23,24,25,26,27,28,29,30,31,32",
    "international": "W:W" + ",".join(map(str, range(31, 51))) + ":B" + ",".join(map(str, range(1, 21))),
}


@pytest.mark.parametrize("variant", variant_names())
def test_start_fen(variant):
    rules = get_rules(variant)
    assert start_fen(rules) == START[variant] == Board(variant).fen()
    board = Board(variant)
    assert board.turn == rules.first_player == (BLACK if variant in ("american", "pool") else WHITE)
    assert board.ply == 0 and board.halfmove_clock == 0
    # White's men start on the low ranks in every variant.
    assert all(square_name(rules, i, "algebraic")[1:] in ("1", "2", "3", "4") for i in board.pieces(WHITE))
    assert len(board.pieces(WHITE)) == len(board.pieces(BLACK)) == rules.men_per_side


@pytest.mark.parametrize(
    ("variant", "moves"),
    [
        ("american", {"9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"}),
        ("russian", {"a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"}),
        ("international", {"31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"}),
    ],
)
def test_start_move_text(variant, moves):
    assert {str(m) for m in Board(variant).legal_moves()} == moves


# One position written algebraically in every 8x8 variant: a white man on d6
# takes e7 and reaches f8. Where it goes next is a rule of the variant:
# crowned and stopped; crowned and on as a flying king over g7 (russian);
# on as a man over g7, not crowned (brazilian, pool). On the mirrored italian
# and spanish boards the same position is its mirror image: e6 takes d7.
ALGEBRAIC = "W:Wd6:Be7,g7"
MIRRORED = "W:We6:Bb7,d7"
AFTER_D6 = {
    "american": ("W:W10:B7,8", "10x3", True),
    "pool": ("W:W10:B7,8", "10x12", False),
    "russian": ("W:Wd6:Be7,g7", "d6xh6", True),
    "brazilian": ("W:Wd6:Be7,g7", "d6xh6", False),
    "czech": ("W:Wd6:Be7,g7", "d6xf8", True),
    "italian": ("W:W11:B5,6", "11x2", True),
    "spanish": ("W:W22:B27,28", "22x31", True),
}


@pytest.mark.parametrize("variant", EIGHT)
def test_algebraic_fen_in_every_8x8_variant(variant):
    mirrored = variant in ("italian", "spanish")
    fen = MIRRORED if mirrored else ALGEBRAIC
    man, first, second = ("e6", "d7", "b7") if mirrored else ("d6", "e7", "g7")
    board = Board(variant, fen=fen)
    own_fen, move_text, promotes = AFTER_D6[variant]
    assert board.fen() == own_fen
    assert board.fen("algebraic") == fen
    assert board.piece_at(man) == (WHITE, False)
    assert board.piece_at(first) == board.piece_at(second) == (BLACK, False)
    (move,) = board.legal_moves()
    assert (str(move), move.promotes) == (move_text, promotes)
    assert square_name(board.rules, move.start, "algebraic") == man


@pytest.mark.parametrize("variant", ["italian", "spanish"])
def test_mirrored_boards_name_squares_as_drawn(variant):
    # h1 is a playable corner of these boards and a1 is not: White's men start
    # on b1, d1, f1, h1 and the squares of ranks 2 and 3 that are dark there.
    board = Board(variant)
    assert board.fen(notation="algebraic") == (
        "W:Wa2,b1,b3,c2,d1,d3,e2,f1,f3,g2,h1,h3:Ba6,a8,b7,c6,c8,d7,e6,e8,f7,g6,g8,h7"
    )
    assert Board(variant, fen="W:Wd3:Bc6").piece_at("d3") == (WHITE, False)
    for light in ("a1", "c3", "d4"):
        with pytest.raises(InvalidFenError, match="h1 dark"):
            Board(variant, fen=f"W:W{light}:Bc6")


@pytest.mark.parametrize("variant", variant_names())
def test_ranges_kings_and_case(variant):
    rules = get_rules(variant)
    n = rules.squares
    # High numbers are White's side except where square 1 is at the bottom (spanish):
    # keep men off their own promotion row, which a FEN may not hold.
    high, low = ("W", "B") if rules.numbering_origin.startswith("top") else ("B", "W")
    high_colour, low_colour = (WHITE, BLACK) if high == "W" else (BLACK, WHITE)
    ranged = Board(variant, fen=f"W:{high}{n - 11}-{n}:{low}K1,2-4,k5")
    listed = Board(variant, fen=f"W:{high}" + ",".join(str(i) for i in range(n - 11, n + 1)) + f":{low}K1,2,3,4,K5")
    assert ranged == listed
    assert len(ranged.pieces(high_colour, kings=False)) == 12
    assert {number_of_index(rules, i) for i in ranged.pieces(low_colour, kings=True)} == {1, 5}
    assert {number_of_index(rules, i) for i in ranged.pieces(low_colour, kings=False)} == {2, 3, 4}
    assert Board(variant, fen=f"w:{high.lower()}{n}:{low.lower()}k1") == Board(variant, fen=f"W:{high}{n}:{low}K1")
    parsed = parse_fen(rules, f"B:BK1:WK{n}")  # colours in either order
    assert parsed.turn == 1 and parsed.black_kings == {index_of_number(rules, 1)}


def test_american_range_fen():
    assert Board("american", fen="B:W21-32:B1-12") == Board("american")
    assert Board("american", fen="W:W21-32:B1-12").turn == WHITE


def test_kings_are_written_with_k():
    board = Board("american", fen="W:WK1,21:BK32,5")
    assert board.fen() == "W:WK1,21:B5,K32"
    assert board.fen("algebraic") == "W:Wa3,Kb8:Ba7,Kg1"
    assert Board("american", fen=board.fen("algebraic")) == board


@pytest.mark.parametrize(
    ("fen", "ply", "clock"),
    [
        ("W:W21:B1:H12:F30", 59, 12),  # american: Black moves first, so White's 30th move is ply 59
        ("B:W21:B1:H0:F30", 58, 0),
        ("B:W21:B1:F1", 0, 0),
        ("W:W21:B1:H7", 0, 7),
    ],
)
def test_optional_clock_and_move_number_fields(fen, ply, clock):
    board = Board("american", fen=fen)
    assert (board.ply, board.halfmove_clock) == (ply, clock)
    assert board.fen() == fen.split(":H")[0].split(":F")[0]
    if ":F" in fen and ":H" in fen:
        assert board.fen(clock=True) == fen


def test_clock_fields_count_plies_and_moves():
    board = Board("russian")
    assert board.fen(clock=True).endswith(":H0:F1")
    board.push("c3-d4")
    assert board.fen(clock=True).endswith(":H1:F1")  # Black's reply is still move 1
    for text in ("f6-g5", "b2-c3", "g5-h4", "d4-e5"):
        board.push(text)
    assert board.fen(clock=True).endswith(":H5:F3")
    board.push("d6xf4")  # a capture resets the counter
    assert board.fen(clock=True).endswith(":H0:F4")


def test_pdn_tag_and_quotes_are_accepted():
    assert Board("american", fen='[FEN "W:WK1,21:B5"]') == Board("american", fen="W:WK1,21:B5")
    assert Board("american", fen='"W:WK1,21:B5"') == Board("american", fen="W:WK1,21:B5")


@pytest.mark.parametrize("variant", variant_names())
def test_fen_notation_argument(variant):
    board = Board(variant)
    numeric, algebraic = board.fen("numeric"), board.fen("algebraic")
    assert "a1" not in numeric and ("a1" in algebraic or "h1" in algebraic)
    assert Board(variant, fen=numeric) == Board(variant, fen=algebraic) == board
    assert board.fen() == (algebraic if get_rules(variant).notation == "algebraic" else numeric)
