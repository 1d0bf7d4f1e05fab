"""The OpenSpiel games: OpenSpiel's random_sim_test and an MCTSBot game for every variant, actions equal to ours."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from checkers_env.core import Board  # noqa: E402
from checkers_env.encoding import legal_action_sequences  # noqa: E402
from checkers_env.openspiel import GAME_NAMES, load_game  # noqa: E402

from .conftest import CONFIG_IDS, CONFIGS  # noqa: E402


def _params(overrides: dict) -> dict:
    return {"forced_capture": False} if overrides.get("forced_capture") is False else {}


@pytest.mark.parametrize(("variant", "overrides"), CONFIGS, ids=CONFIG_IDS)
def test_random_sim_test(variant, overrides):
    game = load_game(variant, max_moves=60, **_params(overrides))
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize(("variant", "overrides"), CONFIGS, ids=CONFIG_IDS)
def test_mcts_bot_plays_a_game(variant, overrides):
    from open_spiel.python.algorithms import mcts

    game = load_game(variant, max_moves=12, **_params(overrides))
    bots = [
        mcts.MCTSBot(
            game,
            1.4,
            6,
            mcts.RandomRolloutEvaluator(1, np.random.RandomState(k)),
            random_state=np.random.RandomState(k),
        )  # fmt: skip
        for k in range(2)
    ]
    state = game.new_initial_state()
    while not state.is_terminal():
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.returns()[0] == -state.returns()[1]


def test_registered_names_parameters_and_game_facts():
    names = set(pyspiel.registered_names())
    assert set(GAME_NAMES) <= names and len(GAME_NAMES) == 8
    game = pyspiel.load_game("checkers_env_international")
    game_type = game.get_type()
    assert game_type.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert game_type.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_distinct_actions() == 1800 and game.observation_tensor_shape() == [8, 10, 10]
    house = pyspiel.load_game("checkers_env_american(forced_capture=false)")
    assert house.rules.forced_capture is False
    with pytest.raises(Exception, match="fen|FEN"):
        pyspiel.load_game("checkers_env_russian(fen=nonsense)")


def test_a_multi_capture_is_consecutive_actions_of_one_player_and_actions_are_ours():
    fen = "W:Wd6:Be7,g7"  # russian: d6xf8, crowned, goes on as a king: d6:f8:h6
    game = load_game("russian", fen=fen)
    state = game.new_initial_state()
    board = Board("russian", fen=fen)
    (sequence,) = legal_action_sequences(board)
    assert state.current_player() == 0 and state.legal_actions() == [sequence[0]]
    state.apply_action(sequence[0])
    assert state.current_player() == 0 and state.legal_actions() == [sequence[1]]
    assert "move in progress" in str(state)
    state.apply_action(sequence[1])
    assert state.is_terminal() and state.returns() == [1.0, -1.0]


def test_observation_tensor_is_our_planes_and_states_clone_pickle_and_serialize():
    from checkers_env.observation import planes_of

    game = load_game("czech")
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(15):
        state.apply_action(int(rng.choice(state.legal_actions())))
    board = state.board()
    if not state.board().legal_moves() or "progress" in str(state):
        pytest.skip("position not at a whole move")
    for player in (0, 1):
        colour = player ^ int(board.rules.first_player)
        expected = planes_of(board, colour)
        got = np.asarray(state.observation_tensor(player)).reshape(expected.shape)
        np.testing.assert_array_equal(got[:6], expected[:6])
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() != state.history() and state.fen() == board.fen()
    assert str(pickle.loads(pickle.dumps(state))) == str(state)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert state2.history() == state.history() and str(state2) == str(state)
    with pytest.raises(Exception, match="illegal action"):
        state.apply_action(0)
    assert state.history() == clone.history()[:-1]
