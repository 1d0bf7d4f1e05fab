"""The single-agent Gymnasium view: env checkers, opponents of every form, illegal actions, a MaskablePPO smoke run."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from checkers_env.core import Board, IllegalMoveError  # noqa: E402
from checkers_env.gym_env import SingleAgentEnv  # noqa: E402

from .conftest import CONFIG_IDS, CONFIGS  # noqa: E402


@pytest.mark.parametrize(("variant", "overrides"), CONFIGS, ids=CONFIG_IDS)
def test_gymnasium_env_checker(variant, overrides):
    from gymnasium.utils.env_checker import check_env

    check_env(SingleAgentEnv(variant, agent="random", max_moves=60, **overrides), skip_render_check=True)


@pytest.mark.filterwarnings("ignore:.*image.*")
@pytest.mark.filterwarnings("ignore:.*minimal resolution.*")
def test_stable_baselines3_env_checker():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    check_env(SingleAgentEnv("american", agent="random", max_moves=60))
    check_env(SingleAgentEnv("international", agent="player_1"))


def test_unmasked_sample_loses_by_default_and_raises_on_request():
    env = SingleAgentEnv("american")
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.game.games.copy()
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert (reward, terminated, truncated, info2["illegal_action"]) == (-1.0, True, False, True)
    np.testing.assert_array_equal(obs2, obs)
    np.testing.assert_array_equal(env.game.games, before)
    assert not env.action_masks().any() and not info2["action_mask"].any()
    with pytest.raises(IllegalMoveError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    for action in (10**6, -1):
        assert env.step(action)[2]
        env.reset(seed=0)

    strict = SingleAgentEnv("american", illegal_action="raise")
    strict.reset(seed=0)
    before = strict.game.games.copy()
    with pytest.raises(IllegalMoveError, match="legal actions"):
        strict.step(illegal)
    np.testing.assert_array_equal(strict.game.games, before)
    strict.step(int(np.flatnonzero(strict.action_masks())[0]))


@pytest.mark.parametrize("agent", ["player_0", "player_1"])
def test_random_games_end_with_a_reward_from_the_learner_side(agent):
    env = SingleAgentEnv("american", agent=agent, max_moves=150)
    rng = np.random.default_rng(0)
    results = set()
    for game in range(6):
        obs, info = env.reset(seed=game)
        assert obs.shape == (8, 8, 8) and env.observation_space.contains(obs)
        assert int(env.game.to_move(0)) == env.learner_color
        assert env.game.moves_played(0) == (0 if agent == "player_0" else 1)
        done = False
        while not done:
            mask = env.action_masks()
            np.testing.assert_array_equal(mask, info["action_mask"].astype(bool))
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = terminated or truncated
            if not done:
                assert reward == 0.0
        results.add(reward)
        assert not env.action_masks().any()
    assert results <= {-1.0, 0.0, 1.0} and results & {-1.0, 1.0}


def test_callable_opponent_is_called_with_its_observation():
    calls = []

    def first_legal(observation):
        calls.append(observation["observation"].shape)
        return int(np.flatnonzero(observation["action_mask"])[0])

    env = SingleAgentEnv("russian", opponent=first_legal, agent="player_1")
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert calls == [(8, 8, 8), (8, 8, 8)]


def test_agent_spec_and_agent_opponents_play_whole_moves():
    pytest.importorskip("agents")
    from agents import make_agent

    env = SingleAgentEnv("american", opponent="minimax:2", agent="player_1")
    assert env.opponent.kind == "agent" and env.opponent.name == "minimax:2"
    env.reset(seed=3)
    # the opponent's first move is on the board: the learner sees a position after one whole move
    assert env.board.ply == 1 and env.game.moves_played(0) == 1
    minimax = make_agent("minimax:1", "american", seed=0)
    env = SingleAgentEnv("american", opponent=minimax, agent="player_0", max_moves=200)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(1)
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        done = terminated or truncated
    assert reward == -1.0  # minimax:1 beats random play


def test_seeded_resets_replay():
    a = SingleAgentEnv("czech", agent="random", opponent="random")
    b = SingleAgentEnv("czech", agent="random", opponent="random")
    for seed in range(4):
        oa, ia = a.reset(seed=seed)
        ob, ib = b.reset(seed=seed)
        np.testing.assert_array_equal(oa, ob)
        for _ in range(20):
            action = int(np.flatnonzero(ia["action_mask"])[0])
            oa, ra, ta, _, ia = a.step(action)
            ob, rb, tb, _, ib = b.step(action)
            np.testing.assert_array_equal(oa, ob)
            if ta:
                break


def test_random_side_reset_from_fen_and_bad_input():
    env = SingleAgentEnv("international", agent="random")
    sides = {env.reset(seed=seed) and env.agent for seed in range(12)}
    assert sides == {"player_0", "player_1"}
    env = SingleAgentEnv("russian", agent="player_0", opponent="random")
    obs, info = env.reset(options={"fen": "W:Wd6:Be7,g7"})
    assert env.board == Board("russian", fen="W:Wd6:Be7,g7")
    assert info["action_mask"].sum() == 1
    with pytest.raises(ValueError, match="agent"):
        SingleAgentEnv("american", agent="white")
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentEnv("american", illegal_action="ignore")
    with pytest.raises(ValueError, match="opponent"):
        SingleAgentEnv("american", opponent=42)
    with pytest.raises(ValueError, match="unknown agent spec"):
        SingleAgentEnv("american", opponent="grandmaster")
    with pytest.raises(ValueError, match="max_moves"):
        SingleAgentEnv("american", max_moves=0)


def test_render_modes():
    env = SingleAgentEnv("american", render_mode="ansi")
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert isinstance(env.render(), str)
    env = SingleAgentEnv("american", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().ndim == 3


def test_old_import_path_is_the_same_class():
    import checkers_env
    from checkers_env.wrappers import SingleAgentEnv as Old

    assert Old is SingleAgentEnv is checkers_env.SingleAgentEnv


def test_maskable_ppo_trains_a_few_thousand_steps():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    from sb3_contrib.common.maskable.utils import get_action_masks

    torch.set_num_threads(1)
    env = gymnasium.make("checkers/american-v0", agent="player_0", max_moves=100)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=512,
        batch_size=128,
        n_epochs=2,
        seed=0,
        policy_kwargs={"net_arch": [64]},
        device="cpu",
    )
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=1)
    for _ in range(30):
        action, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
        assert env.unwrapped.action_masks()[int(action)]
        obs, _, terminated, truncated, _ = env.step(int(action))
        if terminated or truncated:
            break
