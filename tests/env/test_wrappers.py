"""The single-agent Gymnasium wrapper, and a MaskablePPO smoke run on it."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_env.core import IllegalMoveError
from checkers_env.wrappers import SingleAgentEnv


@pytest.mark.parametrize("agent", ["player_0", "player_1"])
def test_random_games_end_with_a_reward_from_the_learner_side(agent):
    env = SingleAgentEnv("american", agent=agent, max_moves=150)
    rng = np.random.default_rng(0)
    results = set()
    for game in range(6):
        obs, info = env.reset(seed=game)
        assert obs.shape == (8, 8, 8) and env.observation_space.contains(obs)
        assert env.game.agent_selection == agent
        assert env.game.episode_plies == (0 if agent == "player_0" else 1)
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


def test_fixed_opponent_is_called_with_its_observation():
    calls = []

    def first_legal(observation):
        calls.append(observation["observation"].shape)
        return int(np.flatnonzero(observation["action_mask"])[0])

    env = SingleAgentEnv("russian", opponent=first_legal, agent="player_1")
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert calls == [(8, 8, 8), (8, 8, 8)]


def test_random_side_and_bad_input():
    env = SingleAgentEnv("international", agent="random")
    sides = set()
    for seed in range(12):
        env.reset(seed=seed)
        sides.add(env.agent)
    assert sides == {"player_0", "player_1"}
    with pytest.raises(IllegalMoveError, match="legal actions"):
        env.step(0)
    with pytest.raises(ValueError, match="agent"):
        SingleAgentEnv("american", agent="white")
    with pytest.raises(ValueError, match="opponent"):
        SingleAgentEnv("american", opponent="minimax")


def test_maskable_ppo_trains_a_few_thousand_steps():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    pytest.importorskip("torch")
    import torch
    from sb3_contrib.common.maskable.utils import get_action_masks

    torch.set_num_threads(1)

    env = SingleAgentEnv("american", agent="player_0", max_moves=100)
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
        assert env.action_masks()[int(action)]
        obs, _, terminated, truncated, _ = env.step(int(action))
        if terminated or truncated:
            break
