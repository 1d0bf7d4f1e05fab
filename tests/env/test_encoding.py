"""The action encoding: layout, round trips, Python helpers vs numba kernels."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_env.core import Board, IllegalMoveError
from checkers_env.core.geometry import geometry
from checkers_env.encoding import (
    action_bits,
    action_to_leg,
    actions_to_move,
    actions_to_text,
    decode_action,
    encode_action,
    leg_action,
    leg_to_action,
    legal_action_sequences,
    make_tables,
    move_to_actions,
    num_actions,
    text_to_actions,
)


def test_action_space_sizes():
    assert num_actions(8) == 32 * 4 * 7 == 896
    assert num_actions(10) == 50 * 4 * 9 == 1800


@pytest.mark.parametrize("size", [8, 10])
def test_encode_decode_round_trip(size):
    for action in range(num_actions(size)):
        assert encode_action(*decode_action(action, size), size) == action


@pytest.mark.parametrize("size", [8, 10])
@pytest.mark.parametrize("turn", [0, 1])
def test_leg_round_trip_and_kernels_agree(size, turn):
    g = geometry(size)
    tables = make_tables(size)
    on_board = 0
    for action in range(num_actions(size)):
        leg = action_to_leg(action, size, turn)
        fb, tb = action_bits(tables, action, turn)
        if leg is None:
            assert fb == -1 and tb == -1
            continue
        on_board += 1
        assert g.neighbour(leg.start, leg.direction, leg.distance) == leg.end
        assert leg_to_action(leg.start, leg.end, size, turn) == action
        assert (fb, tb) == (g.bit_of_index[leg.start], g.bit_of_index[leg.end])
        assert leg_action(tables, fb, tb, turn) == action
    # every (square, direction, distance) that stays on the board is one action
    expected = sum(
        1 for i in range(g.squares) for d in range(4) for k in range(1, size) if g.neighbour(i, d, k) is not None
    )
    assert on_board == expected


def test_documented_example_and_colour_symmetry():
    # 22-18 for White and 11-15 for Black are the same leg in the mover's frame
    assert leg_to_action(21, 17, 8, 0) == 595
    assert leg_to_action(10, 14, 8, 1) == 595
    assert action_to_leg(595, 8, 1).start == 10


def test_rotation_maps_black_men_forward():
    board = Board("american")  # Black to move: men move down the board, i.e. "up" in Black's frame
    for move in board.legal_moves():
        (action,) = move_to_actions(move, 8, int(board.turn))
        _, direction, distance = decode_action(action, 8)
        assert direction in (0, 1) and distance == 1


@pytest.mark.parametrize("bad", [-1, 896, 10**9])
def test_decode_rejects_out_of_range(bad):
    with pytest.raises(ValueError, match="0..895"):
        decode_action(bad, 8)


@pytest.mark.parametrize("bad", [1.0, "3", None, True])
def test_decode_rejects_non_integers(bad):
    with pytest.raises(ValueError, match="integer"):
        decode_action(bad, 8)


def test_leg_to_action_rejects_non_diagonal():
    with pytest.raises(ValueError, match="diagonal"):
        leg_to_action(0, 1, 8, 0)


@pytest.mark.parametrize("variant", ["american", "russian", "international", "italian"])
def test_move_text_action_round_trip_on_random_games(variant):
    rng = np.random.default_rng(7)
    board = Board(variant)
    for _ in range(120):
        moves = board.legal_moves()
        if not moves or board.outcome() is not None:
            break
        sequences = legal_action_sequences(board)
        assert len(sequences) == len(moves)
        for move in moves:
            actions = move_to_actions(move, board.rules.board_size, int(board.turn))
            assert len(actions) == len(move.path)
            assert actions_to_move(board, actions) == move
            assert actions_to_text(board, actions) == str(move)
            assert text_to_actions(board, str(move)) == actions
        board.push(moves[rng.integers(len(moves))])
    assert board.ply > 20


def test_actions_to_move_names_legal_sequences():
    board = Board("american")
    with pytest.raises(IllegalMoveError, match="legal moves"):
        actions_to_move(board, [0])
