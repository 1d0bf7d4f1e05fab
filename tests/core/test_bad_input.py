"""Bad input raises a ``ValueError`` subclass that says what was wrong.

Every error the core raises for input a user can get wrong is a
:class:`CheckersError` (a ``ValueError``); its message names the offending
text and, when it is about a position, contains that position's FEN.
Fuzzing with Hypothesis checks that nothing else escapes.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checkers_env.core import (
    BLACK,
    AmbiguousMoveError,
    Board,
    CheckersError,
    EmptyMoveStackError,
    IllegalMoveError,
    InvalidFenError,
    InvalidSquareError,
    RulesError,
    UnknownVariantError,
    get_rules,
    variant_names,
)

START_AMERICAN = Board("american").fen()


def test_every_error_is_a_value_error():
    for error in (
        CheckersError,
        RulesError,
        UnknownVariantError,
        InvalidFenError,
        InvalidSquareError,
        IllegalMoveError,
        AmbiguousMoveError,
        EmptyMoveStackError,
    ):
        assert issubclass(error, ValueError)


# ----------------------------------------------------------------------- FEN


@pytest.mark.parametrize(
    ("fen", "names"),
    [
        ("", ["must start with the side to move"]),
        ("X:W21:B1", ["'X:W21:B1'", "side to move"]),
        ("W:W21:B1:Q7", ["'Q7'", "'W:W21:B1:Q7'"]),
        ("W:W21:W22", ["colour 'W' appears twice"]),
        ("W:W21:B1:Hx", ["'Hx'"]),
        ("W:Wx:B1", ["'x'", "'W:Wx:B1'"]),
        ("W:W1.5:B9", ["'1.5'"]),
        ("W:WK:B9", ["'K'"]),
        ("W:W5-1:B9", ["'5-1'", "backwards"]),
        ("W:W1-:B9", ["'1-'"]),
    ],
)
def test_malformed_fen(fen, names):
    with pytest.raises(InvalidFenError) as info:
        Board("american", fen=fen)
    for name in names:
        assert name in str(info.value)


@pytest.mark.parametrize(
    ("variant", "fen", "square"),
    [
        ("american", "W:W33:B1", "33"),
        ("american", "W:W0:B1", "0"),
        ("american", "W:W21-40:B1", "33"),
        ("international", "W:W51:B1", "51"),
        ("russian", "W:Wa2:Bb8", "a2"),  # a light square
        ("russian", "W:Wi1:Bb8", "i1"),
        ("international", "W:Wa11:B1", "a11"),
    ],
)
def test_squares_off_the_board(variant, fen, square):
    with pytest.raises(InvalidFenError) as info:
        Board(variant, fen=fen)
    assert square in str(info.value) and fen in str(info.value)
    assert "off the board" in str(info.value) or "not a playable square" in str(info.value)


@pytest.mark.parametrize(
    ("fen", "square"),
    [("W:W21,21:B1", "21"), ("W:W21-25,23:B1", "23"), ("W:W21,K21:B1", "21"), ("W:W21:B21", "21")],
)
def test_duplicated_squares(fen, square):
    with pytest.raises(InvalidFenError) as info:
        Board("american", fen=fen)
    assert square in str(info.value) and fen in str(info.value)


def test_fen_that_is_not_a_string():
    with pytest.raises(InvalidFenError, match="string"):
        Board("american", fen=5)


# ---------------------------------------------------------------------- moves


@pytest.mark.parametrize("text", ["11-18", "11x18", "22-18", "1-5", "11-15-19"])
def test_illegal_move_text(text):
    board = Board("american")
    with pytest.raises(IllegalMoveError) as info:
        board.push(text)
    message = str(info.value)
    assert repr(text) in message and START_AMERICAN in message
    assert "11-15" in message  # the legal moves are listed
    assert board.fen() == START_AMERICAN and board.move_stack == []


@pytest.mark.parametrize("text", ["", "   ", "11", "11-", "foo", "99-15", "11-99", "z9-a1"])
def test_malformed_move_text(text):
    board = Board("american")
    with pytest.raises(IllegalMoveError) as info:
        board.push(text)
    assert START_AMERICAN in str(info.value)


@pytest.mark.parametrize("thing", [None, 42, 11.15, ("11", "15")])
def test_push_of_something_that_is_not_a_move(thing):
    with pytest.raises(IllegalMoveError, match=type(thing).__name__):
        Board("american").push(thing)


def test_move_from_another_position():
    board = Board("american", fen="W:WK14:B1")
    foreign = Board("american").legal_moves()[0]
    with pytest.raises(IllegalMoveError) as info:
        board.push(foreign)
    assert str(foreign) in str(info.value) and board.fen() in str(info.value)


# Positions where two legal captures join the same start and end squares but
# take different pieces, so "start x end" does not say which one is meant.
# (variant, FEN, ambiguous text, two full routes, a route that is not legal)
AMBIGUOUS = [
    # A man takes two men either way round a square (short moves, men capture forwards only).
    ("american", "W:W31:B18,19,26,27", "31x15", ["31x22x15", "31x24x15"], "31x23x15"),
    ("italian", "W:W22:B7,10,11,17,18,19", "22x6", ["22x13x6", "22x15x6"], "22x14x6"),
    # Flying kings: two different rectangles of captures.
    ("russian", "W:WKb2:Bc3,c7,e7,f2", "b2xg1", ["b2xd4xg1", "b2xf6xd8xb6xg1"], "b2xe5xg1"),
    ("brazilian", "W:WKf8:Bb2,c3,c5,g5", "f8xh6", ["f8xb4xd2xh6", "f8xa3xc1xh6"], "f8xc5xh6"),
    ("international", "W:WK18:B22,29,37,41", "18x24", ["18x31x42x24", "18x36x47x24"], "18x27x24"),
]


@pytest.mark.parametrize(("variant", "fen", "text", "routes", "wrong"), AMBIGUOUS, ids=[a[0] for a in AMBIGUOUS])
def test_ambiguous_move_text(variant, fen, text, routes, wrong):
    board = Board(variant, fen=fen)
    same_ends = [m for m in board.legal_moves() if str(m) in routes]
    assert len(same_ends) == 2 and same_ends[0].key()[2] != same_ends[1].key()[2], "the captured sets must differ"
    with pytest.raises(AmbiguousMoveError) as info:
        board.push(text)
    message = str(info.value)
    assert repr(text) in message and board.fen() in message
    assert all(route in message for route in routes)
    assert isinstance(info.value, IllegalMoveError)
    for route in routes:  # naming the landing squares picks one
        assert str(board.push(route)) == route
        board.pop()
    with pytest.raises(IllegalMoveError):
        board.push(wrong)


# A legal move written along another of its routes than the one the generator
# keeps: a flying king that may land on several squares between two captured
# pieces (Czech championship 2008), and circular captures written round the
# loop either way (PDN 3.0 writes such a capture with its route).
CZECH_2008 = "W:WKb8,c1,c3,e1,f2,f6,g1:Ba5,b2,c7,f4,f8,h8"


def test_flying_king_route_through_another_landing_square():
    board = Board("czech", fen=CZECH_2008)
    move = board.parse_move("b8xh2")
    assert {board.square_name(i) for i in move.captures} == {"c7", "f4"}
    for text in ("b8xd6xh2", "b8xe5xh2", "b8:e5:h2", "b8xe5 x h2"):
        assert board.parse_move(text) == move, text
    assert board.parse_move("b8xe5xg3") == board.parse_move("b8xg3") != move
    for text in ("b8xf4xh2", "b8xc7xh2", "b8xe5xd6xh2", "b8xg3xh2"):
        with pytest.raises(IllegalMoveError) as info:
            board.parse_move(text)
        assert not isinstance(info.value, AmbiguousMoveError) and CZECH_2008 in str(info.value)


@pytest.mark.parametrize(
    ("variant", "one_way", "other_way"),
    [
        ("american", "22x13x6x15x22", "22x15x6x13x22"),
        ("russian", "c3xa5xc7xe5xc3", "c3xe5xc7xa5xc3"),
    ],
)
def test_circular_capture_written_either_way_round(variant, one_way, other_way):
    board = Board(variant, fen="W:WKc3:Bb4,b6,d4,d6")
    move = board.parse_move(one_way)
    assert len(move.captures) == 4 and move.start == move.end
    assert board.parse_move(other_way) == move
    parts = other_way.split("x")
    assert board.parse_move("x".join([parts[0], parts[1], parts[-1]])) == move  # one landing named
    board.push(other_way)
    assert board.pieces(BLACK) == [] and board.peek() == move


def test_route_of_two_moves_is_still_ambiguous():
    # b2xg1 has two captures of different pieces; naming only a square both
    # routes pass through cannot tell them apart.
    board = Board("russian", fen="W:WKb2:Bc3,c7,e7,f2")
    with pytest.raises(AmbiguousMoveError):
        board.parse_move("b2xg1")


# --------------------------------------------------------------- rules, stack


@pytest.mark.parametrize("name", ["nosuchvariant", "", "americanx", "checkers8"])
def test_unknown_variant(name):
    with pytest.raises(UnknownVariantError) as info:
        Board(name)
    assert repr(name) in str(info.value) and "american" in str(info.value)


def test_variant_that_is_not_a_name():
    with pytest.raises(UnknownVariantError, match="int"):
        Board(123)


@pytest.mark.parametrize(
    ("variant", "overrides", "names"),
    [
        ("international", {"forced_capture": False}, ["forced_capture", "8x8"]),
        ("american", {"board_size": 9}, ["board_size", "9"]),
        ("american", {"draw_plies": -1}, ["draw_plies", "-1"]),
        ("american", {"first_player": "red"}, ["first_player", "'red'"]),
        ("american", {"repetition_draw": 1}, ["repetition_draw"]),
        ("american", {"notation": "roman"}, ["notation", "'roman'"]),
        ("american", {"no_such_rule": True}, ["no_such_rule", "forced_capture"]),
    ],
)
def test_invalid_rule_combinations(variant, overrides, names):
    with pytest.raises(RulesError) as info:
        Board(variant, **overrides)
    for name in names:
        assert name in str(info.value)
    with pytest.raises(RulesError):
        get_rules(variant, **overrides)


def test_house_rule_is_valid_on_every_8x8_variant():
    for variant in variant_names():
        if get_rules(variant).board_size == 8:
            assert Board(variant, forced_capture=False).rules.forced_capture is False


def test_pop_and_peek_on_an_empty_stack():
    board = Board("international")
    for method in (board.pop, board.peek):
        with pytest.raises(EmptyMoveStackError) as info:
            method()
        assert board.fen() in str(info.value)
    board.push(board.legal_moves()[0])
    board.pop()
    with pytest.raises(EmptyMoveStackError):
        board.pop()


@pytest.mark.parametrize("square", [32, -1, 100, "33", "z9", "a2", ""])
def test_piece_at_off_the_board(square):
    with pytest.raises(InvalidSquareError):
        Board("american").piece_at(square)


def test_unknown_fen_notation():
    with pytest.raises(ValueError, match="roman"):
        Board("american").fen("roman")


# -------------------------------------------------------------------- fuzzing

FEN_ALPHABET = "WBK:,-0123456789abcdefghijHF. x"


@given(st.sampled_from(variant_names()), st.one_of(st.text(max_size=40), st.text(FEN_ALPHABET, max_size=40)))
def test_any_fen_text_is_read_or_rejected_cleanly(variant, text):
    try:
        board = Board(variant, fen=text)
    except InvalidFenError as exc:
        assert str(exc)
        return
    # Whatever was accepted is a usable position.
    board.legal_moves()
    board.outcome()
    assert Board(variant, fen=board.fen()) == board


@given(
    st.sampled_from(variant_names()), st.one_of(st.text(max_size=20), st.text("0123456789x-:abcdefghij ", max_size=20))
)
def test_any_move_text_is_played_or_rejected_cleanly(variant, text):
    board = Board(variant)
    try:
        board.push(text)
    except IllegalMoveError as exc:
        assert board.fen() in str(exc)
        assert board.move_stack == []
    else:
        assert len(board.move_stack) == 1


# ------------------------------------------------- FEN clock and move number


@pytest.mark.parametrize(
    "field",
    [
        "H" + "9" * 5000,  # more digits than int() converts
        "F" + "9" * 5000,
        "H99999999999999999999",  # does not fit the state's int64 words
        "F99999999999999999999",
        "H9223372036854775807",  # fits int64 but wraps when the clock advances
        "F4611686018427387904",  # the ply it gives wraps int64
        "H100000",
        "F100000",
        "F0",
        "H-1",
        "H\u00b2",  # a digit to str.isdigit, not to int()
        "F\u0663",  # an Arabic-Indic digit
    ],
)
def test_clock_and_move_number_out_of_range(field):
    fen = f"W:W21:B1:{field}"
    with pytest.raises(InvalidFenError) as info:
        Board("american", fen=fen)
    message = str(info.value)
    assert field[0] in message and ("H" in message or "F" in message)
    assert len(message) < 500  # a huge field is not echoed whole


def test_clock_and_move_number_bounds_are_documented_and_accepted():
    from checkers_env.core.notation import MAX_CLOCK, MAX_MOVE_NUMBER

    board = Board("american", fen=f"W:W21:B1:H{MAX_CLOCK}:F{MAX_MOVE_NUMBER}")
    assert board.halfmove_clock == MAX_CLOCK
    assert board.fen(clock=True) == f"W:W21:B1:H{MAX_CLOCK}:F{MAX_MOVE_NUMBER}"
    for fen in (f"W:W21:B1:H{MAX_CLOCK + 1}", f"W:W21:B1:F{MAX_MOVE_NUMBER + 1}"):
        with pytest.raises(InvalidFenError, match="at most"):
            Board("american", fen=fen)


# ------------------------------------------------------- impossible positions


@pytest.mark.parametrize(
    ("variant", "fen", "square"),
    [
        ("american", "W:W1:B5", "1"),  # a white man on Black's back row, where White is crowned
        ("american", "W:W22:B30", "30"),
        ("russian", "W:Wb8:Bg3", "b8"),
        ("russian", "B:Wc3:Bg1", "g1"),
        ("international", "W:W3:B40", "3"),
        ("international", "W:W30:B48", "48"),
    ],
)
def test_man_on_its_promotion_row_is_refused(variant, fen, square):
    with pytest.raises(InvalidFenError) as info:
        Board(variant, fen=fen)
    message = str(info.value)
    assert repr(square) in message and fen in message and "K" in message
    Board(variant, fen=fen.replace(f"W{square}", f"WK{square}").replace(f"B{square}", f"BK{square}"))


def test_russian_man_on_promotion_row_cannot_capture_backwards_as_a_man():
    # Once accepted, this man captured backwards as a man; the FEN must say king.
    with pytest.raises(InvalidFenError):
        Board("russian", fen="W:Wd8:Be7")
    assert {str(m) for m in Board("russian", fen="W:WKd8:Be7").legal_moves()} == {"d8xf6", "d8xg5", "d8xh4"}


@pytest.mark.parametrize(
    ("variant", "fen", "count", "limit"),
    [
        ("american", "W:W17-29:B1", 13, 12),
        ("american", "W:W29:BK1-13", 13, 12),
        ("russian", "W:WKa1:B5-17,K18", 14, 12),
        ("international", "W:W25-45:B1", 21, 20),
    ],
)
def test_more_pieces_than_a_side_starts_with_is_refused(variant, fen, count, limit):
    with pytest.raises(InvalidFenError) as info:
        Board(variant, fen=fen)
    message = str(info.value)
    assert str(count) in message and str(limit) in message and fen in message


@pytest.mark.parametrize("variant", variant_names())
def test_start_position_and_full_material_with_kings_are_accepted(variant):
    rules = get_rules(variant)
    board = Board(variant)
    assert Board(variant, fen=board.fen()) == board
    n = rules.men_per_side
    kings = "W:WK" + ",K".join(str(i) for i in range(1, n + 1)) + f":BK{rules.squares}"
    assert len(Board(variant, fen=kings).pieces(0)) == n


# ------------------------------------------------------------ huge numbers


@pytest.mark.parametrize(
    "text", ["1-" + "1" * 5000, "1" * 5000 + "-15", "11x" + "0" * 5000 + "1", "a" + "1" * 5000 + "-b2"]
)
def test_move_text_with_a_huge_square_number(text):
    board = Board("american")
    with pytest.raises(IllegalMoveError) as info:
        board.push(text)
    assert START_AMERICAN in str(info.value) and len(str(info.value)) < 1000


@pytest.mark.parametrize("variant", ["american", "russian"])
def test_huge_square_number_is_an_invalid_square(variant):
    from checkers_env.core.notation import parse_square

    with pytest.raises(InvalidSquareError, match="off the board"):
        parse_square(get_rules(variant), "7" * 5000)
    assert parse_square(get_rules(variant), "0001") == parse_square(get_rules(variant), "1")


# ----------------------------------------------------------- rule field types

# A wrong value of another type for every field of Rules, by the field's type.
# (first_player is checked by value: see test_invalid_rule_combinations.)
WRONG_TYPES = {
    "bool": ["no", 1, 0, None, 1.0],
    "int": ["80", 80.0, True, None],
    "str": [1, None, b"x", ("a",)],
    "MidCapturePromotion": ["ENDS_MOVE", 1.0, True, None],
}
EXPECTED_WORD = {"bool": "bool", "int": "int", "str": "str", "MidCapturePromotion": "MidCapturePromotion"}


def _typed_fields():
    import dataclasses

    from checkers_env.core import Rules

    return [(f.name, f.type) for f in dataclasses.fields(Rules) if f.name != "first_player"]


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [(name, value, kind) for name, kind in _typed_fields() for value in WRONG_TYPES[kind]],
)
def test_rule_override_of_the_wrong_type(field, value, expected):
    with pytest.raises(RulesError) as info:
        Board("american", **{field: value})
    message = str(info.value)
    assert field in message and EXPECTED_WORD[expected] in message and type(value).__name__ in message


def test_every_rule_field_has_a_type_check():
    assert {kind for _, kind in _typed_fields()} <= set(WRONG_TYPES)


def test_rule_overrides_of_the_right_type_are_accepted():
    import numpy as np

    from checkers_env.core import MidCapturePromotion

    rules = get_rules("american", draw_plies=np.int64(60), mid_capture_promotion=1, forced_capture=False)
    assert rules.draw_plies == 60 and type(rules.draw_plies) is int
    assert rules.mid_capture_promotion is MidCapturePromotion.CONTINUES_AS_KING
    assert rules.forced_capture is False
    assert get_rules("american", board_size=8) == get_rules("american")
