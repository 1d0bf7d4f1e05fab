"""Hypothesis properties of ``Board`` for every variant.

Positions come from two strategies: random play from the start position, and
random placements of men and kings (men never on their own promotion row),
followed by a little random play. The properties:

* push then pop restores everything observable;
* FEN round-trips in both notations, and ``Board(v, b.fen()) == b``;
* the colour-mirrored position (turned 180 degrees, colours and side to move
  swapped) has exactly the mirrored moves;
* a move never adds pieces: the mover keeps its count, the opponent loses
  exactly the captured pieces, men never grow in number;
* random legal move sequences never raise, and popping them all returns to
  the first position.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkers_env.core import BLACK, WHITE, Board, get_rules, variant_names
from checkers_env.core.notation import square_name

VARIANTS = variant_names()


@st.composite
def placements(draw, variant: str) -> str:
    """A random FEN (algebraic squares) with men and kings of both colours."""
    rules = get_rules(variant)
    n, row = rules.squares, rules.squares_per_row
    occupied = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=n * 2 // 3, unique=True))
    pieces: dict[str, list[str]] = {"W": [], "B": []}
    for index in occupied:
        # A side has at most the men it starts with.
        colours = [c for c in "WB" if len(pieces[c]) < rules.men_per_side]
        colour = draw(st.sampled_from(colours))
        # White men promote on the top row (indices 0..row-1), Black men on the bottom row.
        on_promotion_row = index < row if colour == "W" else index >= n - row
        king = on_promotion_row or draw(st.booleans())
        pieces[colour].append(("K" if king else "") + square_name(rules, index, "algebraic"))
    turn = draw(st.sampled_from("WB"))
    return f"{turn}:W{','.join(pieces['W'])}:B{','.join(pieces['B'])}"


def _play(board: Board, choices: list[int]) -> Board:
    for choice in choices:
        moves = board.legal_moves()
        if not moves or board.outcome() is not None:
            break
        board.push(moves[choice % len(moves)])
    return board


@st.composite
def boards(draw, variants=VARIANTS) -> Board:
    """A board reached by random play, from the start or from a random placement."""
    variant = draw(st.sampled_from(variants))
    if draw(st.booleans()):
        board = Board(variant)
        plies = draw(st.integers(0, 120))
    else:
        board = Board(variant, fen=draw(placements(variant)))
        plies = draw(st.integers(0, 10))
    choices = draw(st.lists(st.integers(0, 2**16), min_size=plies, max_size=plies))
    return _play(board, choices)


def _snapshot(board: Board) -> tuple:
    return (
        board.fen(),
        board.fen(clock=True),
        board.turn,
        board.ply,
        board.halfmove_clock,
        [(m, m.text, m.path) for m in board.legal_moves()],
        board.state.tolist(),
        board.outcome(),
    )


@given(boards())
def test_push_then_pop_restores_the_board(board):
    before = _snapshot(board)
    stack = board.move_stack
    for move in board.legal_moves():
        board.push(move)
        assert board.peek() == move
        assert board.pop() == move
        assert _snapshot(board) == before, f"push/pop of {move} changed {before[0]}"
    assert board.move_stack == stack


@given(boards())
def test_fen_round_trips(board):
    variant = board.rules.name
    assert Board(variant, board.fen()) == board
    for notation in ("numeric", "algebraic"):
        fen = board.fen(notation)
        again = Board(variant, fen=fen)
        assert again == board, f"{notation} FEN {fen!r}"
        assert again.fen(notation) == fen
        assert again.fen() == board.fen()
        assert again.legal_moves() == board.legal_moves()


@given(st.sampled_from(VARIANTS), st.lists(st.integers(0, 2**16), max_size=120))
def test_fen_with_clock_round_trips_ply_and_counter(variant, choices):
    board = _play(Board(variant), choices)
    again = Board(variant, fen=board.fen(clock=True))
    assert (again.ply, again.halfmove_clock) == (board.ply, board.halfmove_clock), board.fen(clock=True)
    assert again.fen(clock=True) == board.fen(clock=True)


def _mirror_fen(board: Board) -> str:
    """The position turned 180 degrees with colours and side to move swapped."""
    n = board.rules.squares
    out = {}
    for colour, letter in ((WHITE, "B"), (BLACK, "W")):
        kings = set(board.pieces(colour, kings=True))
        out[letter] = [
            ("K" if i in kings else "") + square_name(board.rules, n - 1 - i, "algebraic") for i in board.pieces(colour)
        ]
    turn = "B" if board.turn == WHITE else "W"
    return f"{turn}:W{','.join(out['W'])}:B{','.join(out['B'])}"


@given(boards())
def test_colour_mirror_has_the_mirrored_moves(board):
    n = board.rules.squares
    mirrored = Board(board.rules, fen=_mirror_fen(board))

    def keys(b: Board, flip: bool) -> set:
        f = (lambda i: n - 1 - i) if flip else (lambda i: i)
        return {(f(m.start), f(m.end), frozenset(map(f, m.captures)), m.promotes) for m in b.legal_moves()}

    assert keys(mirrored, flip=True) == keys(board, flip=False), f"{board.fen()} mirrored to {mirrored.fen()}"


def _counts(board: Board) -> dict:
    return {(c, k): len(board.pieces(c, kings=k)) for c in (WHITE, BLACK) for k in (False, True)}


@given(boards())
def test_moves_never_add_pieces(board):
    before = _counts(board)
    mover, other = board.turn, board.turn.other
    for move in board.legal_moves():
        board.push(move)
        after = _counts(board)
        board.pop()
        assert after[(mover, False)] + after[(mover, True)] == before[(mover, False)] + before[(mover, True)]
        assert after[(other, False)] + after[(other, True)] == before[(other, False)] + before[(other, True)] - len(
            move.captures
        ), f"{move} in {board.fen()}"
        for colour in (WHITE, BLACK):
            assert after[(colour, False)] <= before[(colour, False)], f"{move} in {board.fen()} made a man"
        assert after[(mover, True)] == before[(mover, True)] + move.promotes


@given(boards())
def test_a_move_lands_where_it_says(board):
    mover = board.turn
    for move in board.legal_moves():
        start_piece = board.piece_at(move.start)
        assert start_piece is not None and start_piece[0] == mover
        assert len(set(move.captures)) == len(move.captures)
        assert all(board.piece_at(c) is not None and board.piece_at(c)[0] == mover.other for c in move.captures)
        assert move.path[-1] == move.end
        board.push(move)
        assert board.piece_at(move.end) == (mover, start_piece[1] or move.promotes)
        assert all(board.piece_at(c) is None for c in move.captures)
        assert move.start == move.end or board.piece_at(move.start) is None
        assert board.turn == mover.other
        board.pop()


@given(boards(), st.lists(st.integers(0, 2**16), min_size=1, max_size=200))
def test_random_move_sequences_never_raise(board, choices):
    first = board.fen(clock=True)
    played = 0
    for choice in choices:
        outcome = board.outcome()
        moves = board.legal_moves()
        if not moves:
            assert outcome is not None and outcome.winner == board.turn.other
            break
        board.push(str(moves[choice % len(moves)]))  # through the move text, too
        str(board)
        board.result()
        played += 1
    for _ in range(played):
        board.pop()
    assert board.fen(clock=True) == first


@pytest.mark.slow
@settings(max_examples=3000)
@given(boards())
def test_many_positions_push_pop_and_mirror(board):
    """The two strongest properties on many more positions."""
    test_push_then_pop_restores_the_board.hypothesis.inner_test(board)
    test_colour_mirror_has_the_mirrored_moves.hypothesis.inner_test(board)
