"""The leg masks complete exactly the core's legal whole moves."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_env.core import movegen as mg
from checkers_env.encoding import make_tables, num_actions
from checkers_env.game import (
    G_LAST_CAPT,
    G_LAST_FROM,
    G_LAST_TO,
    G_PATH,
    GAME_SIZE,
    STEP_CONTINUES,
    LegGames,
    game_from_board,
    init_game,
    random_observations,
    same_position,
    step_game,
    write_observation,
)

from .conftest import CONFIG_IDS, CONFIGS, random_positions


def completed_moves(board):
    """Every whole move reachable by following masked legs: {(from, to, captured, promotes)}.

    Also checks that the mask is never empty while a move is in progress.
    """
    rules = board.rules
    params = mg.make_params(rules)
    tables = make_tables(rules.board_size)
    moves = mg.new_move_buffer()
    scratch = mg.new_scratch()
    obs = np.zeros((8, rules.board_size, rules.board_size), dtype=np.float32)
    legal = np.zeros(num_actions(rules.board_size), dtype=np.int64)
    root = np.zeros(GAME_SIZE, dtype=np.int64)
    root[: mg.STATE_SIZE] = board.state
    init_game(root, params, moves, scratch)
    turn = int(board.turn)
    found = set()
    stack = [root]
    while stack:
        game = stack.pop()
        mg.generate_moves(*game[:4], params, moves, scratch)
        mask = np.zeros(num_actions(rules.board_size), dtype=np.int8)
        n = write_observation(game, turn, params, tables, moves, 200, obs, mask, legal, len(legal))
        assert n > 0 and n == mask.sum(), f"empty mask mid-move in {board.fen()}"
        for action in np.flatnonzero(mask):
            child = game.copy()
            code = step_game(child, int(action), params, tables, moves, scratch, 0, False)
            assert code >= 0, f"masked action {action} rejected in {board.fen()}"
            if code == STEP_CONTINUES:
                stack.append(child)
            else:
                to = int(child[G_LAST_TO])
                promotes = bool((int(child[mg.S_KINGS]) >> to) & 1) and not bool(
                    (int(game[mg.S_KINGS]) >> int(child[G_LAST_FROM])) & 1
                )
                found.add((int(child[G_LAST_FROM]), to, int(child[G_LAST_CAPT]), promotes))
    return found


def core_moves(board):
    g_bits = board._geometry.bit_of_index
    return {
        (int(g_bits[m.start]), int(g_bits[m.end]), board._geometry.bits(m.captures), m.promotes)
        for m in board.legal_moves()
    }


def check_positions(variant, overrides, count, seed):
    multi = 0
    for board in random_positions(variant, count, seed, **overrides):
        expected = core_moves(board)
        assert expected, board.fen()
        assert completed_moves(board) == expected, f"masks disagree with the core in {board.fen()}"
        multi += any(len(m.path) > 1 for m in board.legal_moves())
    return multi


@pytest.mark.parametrize(("variant", "overrides"), CONFIGS, ids=CONFIG_IDS)
def test_masked_legs_complete_exactly_the_legal_moves(variant, overrides):
    multi = check_positions(variant, overrides, 1000, seed=11)
    assert multi > 0, "the sample should contain multi-leg captures"


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "overrides"), CONFIGS, ids=CONFIG_IDS)
def test_masked_legs_complete_exactly_the_legal_moves_many(variant, overrides):
    check_positions(variant, overrides, 10000, seed=12)


@pytest.mark.parametrize("variant", ["american", "international"])
def test_random_observations_are_seeded_varied_and_include_the_start(variant):
    obs, masks = random_observations(variant, 40, seed=5, max_plies=30)
    size = 10 if variant == "international" else 8
    assert obs.shape == (40, 8, size, size) and masks.shape == (40, num_actions(size))
    again = random_observations(variant, 40, seed=5, max_plies=30)
    assert np.array_equal(obs, again[0]) and np.array_equal(masks, again[1])
    assert not np.array_equal(obs, random_observations(variant, 40, seed=6, max_plies=30)[0])
    start = LegGames(variant, 1, track_moves=False)
    start.observe(0)
    assert len({row.tobytes() for row in obs}) > 10, "the positions should differ from one another"
    assert any(np.array_equal(row, start.obs[0]) for row in obs), "zero random legs is the start position"
    assert masks.sum(axis=1).max() > 0 and set(np.unique(masks)) <= {0, 1}
    with pytest.raises(ValueError, match="at least 1"):
        random_observations(variant, 0)


def test_same_position_ignores_the_last_move_record_and_leftover_path_words():
    from checkers_env.core import Board
    from checkers_env.encoding import legal_action_sequences

    # White's 22x15x8 is two legs: the stepped game keeps the last move and the first leg's landing
    board = Board("american", fen="W:W22,23:B11,18")
    legs, move = next((seq, m) for seq, m in legal_action_sequences(board).items() if str(m) == "22x8")
    games = LegGames(board.rules, 1, track_moves=False)
    games.load(0, board)
    games.observe(0)
    games.step(0, legs[0])
    halfway = games.games[0].copy()
    assert not same_position(halfway, game_from_board(board))  # a move in progress is another point
    games.observe(0)
    games.step(0, legs[1])
    stepped = games.games[0]
    after = board.copy()
    after.push(move)
    loaded = game_from_board(after)
    assert stepped[G_LAST_FROM] >= 0 and loaded[G_LAST_FROM] == -1 and stepped[G_PATH] != loaded[G_PATH]
    assert same_position(stepped, loaded) and same_position(loaded, stepped)
    assert not same_position(stepped, game_from_board(board))
    other = loaded.copy()
    other[mg.S_TURN] = 1 - other[mg.S_TURN]
    assert not same_position(stepped, other)
