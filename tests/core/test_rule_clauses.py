"""One position test per clause of ``docs/RULES.md`` per variant.

Positions are written in algebraic FEN on the a1-dark reference board of
``geometry.py`` (files from White's left, ranks from White's side), so one
position can be asked of all eight variants and the expected legal move sets
compared side by side. Italian and spanish name squares on their mirrored
board (h1 dark), whose files run the other way: :func:`position` and
:func:`ref` translate, and moves are reported with reference names. The
rules are symmetric left to right, so the mirrored position is the same test.
Expected sets are written out per variant from the rule text, never read
from :class:`Rules` fields, so a test fails when a rule is implemented
differently.

Moves are written as the full path in algebraic squares (``"c3xe5xg7"``),
computed from ``Move.start`` and ``Move.path``; where a flying king can reach the
same end square over the same pieces by several routes only one route is kept
(the "drop duplicates" convention), so such tests compare
``(start, end, captured squares)`` instead.
"""

from __future__ import annotations

import pytest

from checkers_env.core import BLACK, WHITE, Board, Termination
from checkers_env.core.geometry import geometry
from checkers_env.core.notation import is_mirrored

ALL = ("american", "russian", "brazilian", "spanish", "italian", "czech", "international", "pool")
EIGHT_BY_EIGHT = tuple(v for v in ALL if v != "international")
FLYING = ("russian", "brazilian", "spanish", "czech", "international", "pool")
SHORT = ("american", "italian")


_MIRROR_FILES = str.maketrans("abcdefgh", "hgfedcba")


def ref(board: Board, text: str) -> str:
    """Algebraic text (a FEN, a move, a square) written on the reference board, as
    the board's variant names it: italian and spanish mirror the files."""
    return text.translate(_MIRROR_FILES) if is_mirrored(board.rules) else text


def position(variant: str, fen: str | None = None, **overrides) -> Board:
    """A board of ``variant`` set up from a FEN written on the reference board."""
    board = Board(variant, **overrides)
    if fen is not None:
        board.set_fen(ref(board, fen))
    return board


def _name(board: Board, index: int) -> str:
    """Algebraic name of a square on the reference board, whatever the variant."""
    return geometry(board.rules.board_size).algebraic_names[index]


def paths(board: Board) -> set[str]:
    """Each legal move as its full path in algebraic squares, e.g. ``"c3xe5xg7"``."""
    out = set()
    for m in board.legal_moves():
        sep = "x" if m.captures else "-"
        out.add(sep.join(_name(board, i) for i in (m.start, *m.path)))
    return out


def promoting(board: Board) -> set[str]:
    """The full paths (as in :func:`paths`) of the legal moves that crown a man."""
    out = set()
    for m in board.legal_moves():
        if m.promotes:
            sep = "x" if m.captures else "-"
            out.add(sep.join(_name(board, i) for i in (m.start, *m.path)))
    return out


def captures(board: Board) -> set[tuple[str, str, frozenset[str]]]:
    """Each legal move as ``(start, end, captured squares)`` in algebraic squares."""
    return {
        (_name(board, m.start), _name(board, m.end), frozenset(_name(board, c) for c in m.captures))
        for m in board.legal_moves()
    }


def per_variant(table: dict[tuple[str, ...], set]) -> dict[str, set]:
    """Expand ``{(variant, ...): expected}`` to one entry per variant, each named once."""
    out: dict[str, set] = {}
    for variants, expected in table.items():
        for v in variants:
            assert v not in out, f"{v} listed twice"
            out[v] = expected
    return out


def cases(table: dict[tuple[str, ...], set]):
    return [pytest.param(v, e, id=v) for v, e in per_variant(table).items()]


# --------------------------------------------------------------------- men


@pytest.mark.parametrize("variant", ALL)
def test_men_move_forward_only(variant):
    # White men move up the board, Black men down; neither steps backwards.
    assert paths(position(variant, fen="W:Wc3:Bf6")) == {"c3-b4", "c3-d4"}
    assert paths(position(variant, fen="B:Wc3:Bf6")) == {"f6-e5", "f6-g5"}


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            ("russian", "brazilian", "international", "pool"): {"e5xc3"},
            ("american", "spanish", "italian", "czech"): {"e5-d6", "e5-f6"},
        }
    ),
)
def test_men_capture_backwards(variant, expected):
    assert paths(position(variant, fen="W:We5:Bd4")) == expected


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases({("italian",): {"c3-b4"}, tuple(v for v in ALL if v != "italian"): {"c3xe5"}}),
)
def test_men_may_not_capture_kings(variant, expected):
    assert paths(position(variant, fen="W:Wc3:BKd4")) == expected


# ------------------------------------------------------------------- kings


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            SHORT: {"d4-c3", "d4-e5", "d4-c5", "d4-e3", "f6-e7", "f6-g7"},
            # Flying: any distance, stopping before the own man on f6 and the
            # black pieces on b2/a1 (which cannot be jumped: a1 is occupied).
            FLYING: {"d4-c3", "d4-e5", "d4-c5", "d4-b6", "d4-a7", "d4-e3", "d4-f2", "d4-g1", "f6-e7", "f6-g7"},
        }
    ),
)
def test_kings_fly_or_step_and_stop_at_pieces(variant, expected):
    assert paths(position(variant, fen="W:WKd4,f6:BKa1,b2")) == expected


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            # A short king cannot capture at a distance; the man on g7 moves instead.
            SHORT: {"a1-b2", "g7-f8", "g7-h8"},
            # A flying king captures at a distance and lands on any empty square
            # beyond, up to the next piece (the own man on g7).
            FLYING: {"a1xe5", "a1xf6"},
        }
    ),
)
def test_king_captures_at_distance_landing_anywhere_beyond(variant, expected):
    assert paths(position(variant, fen="W:WKa1,g7:Bd4")) == expected


@pytest.mark.parametrize("variant", ALL)
def test_king_cannot_jump_two_adjacent_pieces(variant):
    assert paths(position(variant, fen="W:WKa1:Bc3,d4")) == {"a1-b2"}


# --------------------------------------------------------- capture is forced


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            ("american", "russian", "czech", "pool"): {"c3xe5xg7", "h2xf4"},
            ("brazilian", "spanish", "italian", "international"): {"c3xe5xg7"},
        }
    ),
)
def test_capture_is_mandatory_and_completed(variant, expected):
    # Neither the plain moves c3-b4, e1-d2, e1-f2 nor stopping at e5 are legal.
    assert paths(position(variant, fen="W:Wc3,h2,e1:Bd4,f6,g3")) == expected


PLAIN = {"c3-b4", "e1-d2", "e1-f2"}


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            ("american", "russian", "czech", "pool"): {"c3xe5xg7", "h2xf4"} | PLAIN,
            ("brazilian", "spanish", "italian"): {"c3xe5xg7"} | PLAIN,
        }
    ),
)
def test_house_rule_captures_may_be_declined_but_are_completed(variant, expected):
    # forced_capture=False: plain moves join the captures; a begun capture is
    # still completed (no "c3xe5") and most-pieces still drops h2xf4.
    assert paths(position(variant, fen="W:Wc3,h2,e1:Bd4,f6,g3", forced_capture=False)) == expected


def test_house_rule_is_8x8_only():
    with pytest.raises(ValueError, match="8x8"):
        Board("international", forced_capture=False)


FLYING_H6_PLAIN = {"h6-g5", "h6-f4", "h6-e3", "h6-d2", "h6-c1"}


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            ("american",): {"a1xc3xe5", "h6xf8", "h6-g5"},
            ("italian",): {"a1xc3xe5", "h6-g5"},
            ("russian", "pool"): {"a1xc3xe5", "h6xf8"} | FLYING_H6_PLAIN,
            ("brazilian", "spanish"): {"a1xc3xe5"} | FLYING_H6_PLAIN,
            ("czech",): {"h6xf8"} | FLYING_H6_PLAIN,
        }
    ),
)
def test_house_rule_keeps_capture_priorities(variant, expected):
    # The man's capture takes two, the king's one: most-pieces variants keep
    # only the man's, czech only the king's, whatever plain moves are allowed.
    assert paths(position(variant, fen="W:WKh6,a1:Bg7,b2,d4", forced_capture=False)) == expected


# -------------------------------------------------------- capture priorities


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            ("american", "russian", "pool"): {"a1xc3xe5", "h6xf8"},
            ("brazilian", "spanish", "italian", "international"): {"a1xc3xe5"},
            ("czech",): {"h6xf8"},
        }
    ),
)
def test_most_pieces_or_king_first(variant, expected):
    assert paths(position(variant, fen="W:WKh6,a1:Bg7,b2,d4")) == expected


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            ("american", "russian", "czech", "pool"): {"e3xc5xa7", "h4xf6"},
            # Two men beat one king: a king counts as one piece, and most
            # pieces comes before spanish "most kings". Italian men cannot
            # take the king at all.
            ("brazilian", "spanish", "italian", "international"): {"e3xc5xa7"},
        }
    ),
)
def test_most_pieces_king_counts_as_one(variant, expected):
    assert paths(position(variant, fen="W:We3,h4:Bd4,b6,Kg5")) == expected


def test_italian_most_pieces_before_capture_with_king():
    # The king takes one king, the man two men: most pieces decides first.
    assert paths(position("italian", fen="W:We3,Kh4:Bd4,b6,Kg5")) == {"e3xc5xa7"}


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            ("spanish",): {"a3xc5"},
            ("italian",): {"g3xe5"},
            ("american", "russian", "brazilian", "czech", "international", "pool"): {"a3xc5", "g3xe5"},
        }
    ),
)
def test_spanish_most_kings(variant, expected):
    # One man takes a king, the other a man (one piece each).
    assert paths(position(variant, fen="W:Wa3,g3:BKb4,f4")) == expected


def test_spanish_most_kings_with_flying_kings():
    # Both kings take one piece; only g1's capture of the king on f2 is legal.
    board = position("spanish", fen="W:WKg1,Ka3:BKf2,b4")
    assert paths(board) == {"g1xe3", "g1xd4", "g1xc5", "g1xb6", "g1xa7"}


def test_italian_capture_with_king_beats_capture_with_man():
    assert paths(position("italian", fen="W:WKg1,a3:Bf2,b4")) == {"g1xe3"}


def test_italian_then_most_kings():
    # Both captures are made by kings and take one piece; g1 takes the king.
    assert paths(position("italian", fen="W:WKg1,Ka3:BKf2,b4")) == {"g1xe3"}


def test_italian_then_king_met_earliest():
    # Both routes take two pieces, one of them a king; c3xe5xg7 meets it first.
    assert paths(position("italian", fen="W:WKc3:BKd4,f6,b4,Kb6")) == {"c3xe5xg7"}


def test_italian_most_kings_before_king_met_earliest():
    # a1 takes man, king, king; h8 takes king, man, man. Three pieces each, by
    # kings: the two kings win although h8 meets its king first.
    assert paths(position("italian", fen="W:WKa1,Kh8:Bb2,Kb4,Kb6,Kg7,e5,e3")) == {"a1xc3xa5xc7"}


def test_spanish_no_king_met_earliest_rule():
    # Two pieces and one king each way; spanish has no third priority.
    assert paths(position("spanish", fen="W:Wc3:BKd4,f6,b4,Kb6")) == {"c3xe5xg7", "c3xa5xc7"}


def test_american_free_choice_among_captures():
    assert paths(position("american", fen="W:WKc3:BKd4,f6,b4,Kb6")) == {"c3xe5xg7", "c3xa5xc7"}


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            ("czech",): {"g1xe3", "g1xd4", "g1xc5", "g1xb6", "g1xa7"},
            ("russian", "brazilian", "spanish", "international", "pool"): {
                "a3xc5",
                "g1xe3",
                "g1xd4",
                "g1xc5",
                "g1xb6",
                "g1xa7",
            },
            ("american",): {"a3xc5", "g1xe3"},
            ("italian",): {"g1xe3"},
        }
    ),
)
def test_czech_king_must_capture_if_any_king_can(variant, expected):
    assert paths(position(variant, fen="W:WKg1,a3:Bf2,b4")) == expected


def test_czech_free_choice_among_king_captures():
    # No most-pieces rule: the king may take one piece... or three.
    board = position("czech", fen="W:WKc3:BKd4,f6,b4,Kb6")
    assert paths(board) == {"c3xa5xd8xg5", "c3xa5xd8xh4", "c3xe5xg7", "c3xe5xh8"}


# ---------------------------------------------------- promotion mid-capture


@pytest.mark.parametrize(
    ("variant", "expected", "crowned"),
    [
        pytest.param(v, {"f6xd8"}, True, id=v) for v in ("american", "spanish", "italian", "czech")
    ]  # crowned on d8 and the move ends there, although the king could go on over c7
    + [
        # crowned on d8 and goes on as a flying king: b6 or a5 (a man could not reach a5)
        pytest.param("russian", {"f6xd8xb6", "f6xd8xa5"}, True, id="russian"),
    ]
    + [
        # goes on as a man over c7 and, leaving the far row again, is not crowned
        pytest.param(v, {"f6xd8xb6"}, False, id=v)
        for v in ("brazilian", "pool")
    ],
)
def test_man_reaching_far_row_mid_capture(variant, expected, crowned):
    board = position(variant, fen="W:Wf6:Be7,c7")
    assert paths(board) == expected
    assert promoting(board) == (expected if crowned else set())


def test_international_man_passing_far_row_mid_capture_is_not_crowned():
    board = position("international", fen="W:Wf8:Be9,c9")
    assert paths(board) == {"f8xd10xb8"}
    assert promoting(board) == set()


def test_russian_man_promoted_mid_capture_continues_as_king():
    board = position("russian", fen="W:Wf6:Be7,c7")
    board.push(ref(board, "f6xd8xa5"))
    assert board.piece_at(ref(board, "a5")) == (WHITE, True)
    assert board.pieces(BLACK) == []


@pytest.mark.parametrize("variant", EIGHT_BY_EIGHT)
def test_capture_ending_on_far_row_crowns(variant):
    board = position(variant, fen="W:Wf6:Be7")
    assert promoting(board) == paths(board) == {"f6xd8"}
    board.push(ref(board, "f6xd8"))
    assert board.piece_at(ref(board, "d8")) == (WHITE, True)


def test_international_capture_ending_on_far_row_crowns():
    board = position("international", fen="W:Wf8:Be9")
    assert promoting(board) == paths(board) == {"f8xd10"}


@pytest.mark.parametrize("variant", ALL)
def test_promotion_at_end_of_plain_move(variant):
    top = 10 if variant == "international" else 8
    board = position(variant, fen=f"W:Wc{top - 1},h2:Bb4")
    assert promoting(board) == {f"c{top - 1}-b{top}", f"c{top - 1}-d{top}"}
    board.push(ref(board, f"c{top - 1}-d{top}"))
    assert board.piece_at(ref(board, f"d{top}")) == (WHITE, True)
    assert paths(board) == {"b4-a3", "b4-c3"}
    assert promoting(board) == set()
    black = position(variant, fen="B:WKh8:Bb2")
    assert promoting(black) == paths(black) == {"b2-a1", "b2-c1"}


# ------------------------------------------- removal at the end of the move


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            SHORT: {"c3xa1"},
            ("russian", "brazilian", "spanish", "czech", "pool"): {"c3xa1", "c3xh8"},
            ("international",): {"c3xa1", "c3xh8", "c3xi9", "c3xj10"},
        }
    ),
)
def test_turkish_strike_captured_piece_blocks_until_move_ends(variant, expected):
    # After c3xa1 (over b2) a flying king would come back along a1-h8 to take
    # g7, but the dead man on b2 still stands in the way; likewise after c3xh8.
    assert paths(position(variant, fen="W:WKc3:Bb2,g7")) == expected


@pytest.mark.parametrize("variant", ("russian", "brazilian", "spanish", "czech", "pool"))
def test_turkish_strike_position_matters_when_pieces_vanish_at_once(variant):
    # The same position with removal at once (as in american play) lets the
    # king take both men: proof that the previous test tests the rule.
    board = position(variant, fen="W:WKc3:Bb2,g7", remove_captured_at_end=False)
    assert paths(board) == {"c3xa1xh8", "c3xh8xa1"}


# --------------------------------------- flying kings land where they can go on


@pytest.mark.parametrize(
    ("variant", "expected"),
    cases(
        {
            SHORT: {"a1-b2"},
            # After c3 the king must stop on e5, the only square from which it
            # can take f4: not d4, f6, g7 or h8.
            ("russian", "czech", "pool", "brazilian", "spanish"): {"a1xe5xg3", "a1xe5xh2"},
            ("international",): {"a1xe5xg3", "a1xe5xh2", "a1xe5xi1"},
        }
    ),
)
def test_flying_king_must_land_where_capture_continues(variant, expected):
    assert paths(position(variant, fen="W:WKa1:Bc3,f4")) == expected


def test_flying_king_straight_double_capture_is_one_move():
    # g1 takes f2 and b6 on one diagonal; the routes over e3, d4 or c5 are one move.
    board = position("czech", fen="W:WKg1,a3:Bf2,b4,b6")
    assert captures(board) == {("g1", "a7", frozenset({"f2", "b6"}))}


# ------------------------------------------------------------- draw counter


def _shuffle(variant: str, **overrides):
    """A kings-only board and a cycle of four plies that never captures."""
    top = 10 if variant == "international" else 8
    board = position(variant, fen=f"W:WKa1:BKb{top}", **overrides)
    return board, ["a1-b2", f"b{top}-a{top - 1}", "b2-a1", f"a{top - 1}-b{top}"]


@pytest.mark.parametrize(("variant", "plies"), [pytest.param(v, 50 if v == "international" else 80, id=v) for v in ALL])
def test_draw_after_plies_without_capture(variant, plies):
    board, cycle = _shuffle(variant)
    for i in range(plies):
        assert board.outcome() is None, f"game ended after {i} plies"
        board.push(ref(board, cycle[i % 4]))
    assert board.halfmove_clock == plies
    outcome = board.outcome()
    assert outcome is not None and outcome.termination == Termination.DRAW_RULE and outcome.winner is None
    assert board.result() == "1/2-1/2"


@pytest.mark.parametrize("variant", ALL)
def test_draw_counter_resets_on_capture(variant):
    limit = 50 if variant == "international" else 80
    board = position(variant, fen=f"W:Wc3,Kh2:BKa1,g3:H{limit - 1}")
    board.push(ref(board, "h2xf4"))
    assert board.halfmove_clock == 0
    assert board.outcome() is None


@pytest.mark.parametrize("variant", ALL)
def test_draw_counter_counts_man_moves(variant):
    board = position(variant, fen="W:Wc3,Kh2:BKa1:H7")
    board.push(ref(board, "c3-d4"))
    assert board.halfmove_clock == 8


@pytest.mark.parametrize("variant", EIGHT_BY_EIGHT)
def test_draw_counter_resets_on_promotion_8x8(variant):
    board = position(variant, fen="W:Wc7,Kh2:BKa1:H79")
    assert board.outcome() is None
    board.push(ref(board, "c7-b8"))
    assert board.halfmove_clock == 0
    assert board.outcome() is None


def test_international_draw_counter_ignores_promotion():
    board = position("international", fen="W:Wc9,Kh2:BKa1:H49")
    board.push(ref(board, "c9-b10"))
    assert board.halfmove_clock == 50
    assert board.outcome().termination == Termination.DRAW_RULE


@pytest.mark.parametrize("variant", ALL)
def test_repetition_draw_off_by_default(variant):
    board, cycle = _shuffle(variant)
    for i in range(12):
        board.push(ref(board, cycle[i % 4]))
    assert board.outcome() is None


@pytest.mark.parametrize("variant", ALL)
def test_repetition_draw_when_on(variant):
    board, cycle = _shuffle(variant, repetition_draw=3)
    # The start position recurs after plies 4 and 8: the third time ends the game.
    for i in range(8):
        assert board.outcome() is None, f"game ended after {i} plies"
        board.push(ref(board, cycle[i % 4]))
    outcome = board.outcome()
    assert outcome is not None and outcome.termination == Termination.REPETITION and outcome.winner is None
    board.pop()
    assert board.outcome() is None


# ---------------------------------------------------------------- results


@pytest.mark.parametrize("variant", ALL)
def test_win_when_opponent_has_no_pieces(variant):
    board = position(variant, fen="B:Wc3:B")
    assert board.legal_moves() == []
    outcome = board.outcome()
    assert outcome.termination == Termination.NO_LEGAL_MOVES and outcome.winner == WHITE
    # PDN writes the first player's score first: Black moves first in american and pool.
    assert board.result() == outcome.result() == ("0-1" if variant in ("american", "pool") else "1-0")


@pytest.mark.parametrize("variant", ALL)
def test_win_when_opponent_is_blocked(variant):
    # The white man on a1 can neither step to b2 nor jump it (c3 is taken).
    board = position(variant, fen="W:Wa1:Bb2,c3")
    assert board.legal_moves() == []
    outcome = board.outcome()
    assert outcome.termination == Termination.NO_LEGAL_MOVES and outcome.winner == BLACK
    assert board.result() == outcome.result() == ("1-0" if variant in ("american", "pool") else "0-1")


@pytest.mark.parametrize(
    ("variant", "first"),
    [pytest.param(v, BLACK if v in ("american", "pool") else WHITE, id=v) for v in ALL],
)
def test_first_player(variant, first):
    board = Board(variant)
    assert board.turn == first
    # White's men start on the low ranks in every variant.
    assert board.piece_at(ref(board, "a1")) == (WHITE, False)
