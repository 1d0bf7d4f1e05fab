"""The Gymnasium vector env: step-equal to VectorEnv with a random opponent, batched opponents, autoreset, errors;
and its SB3 VecEnv adapter under MaskablePPO."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import checkers_env  # noqa: E402,F401  (registers the ids)
from checkers_env.core import IllegalMoveError  # noqa: E402
from checkers_env.gym_vector import GymVectorEnv  # noqa: E402
from checkers_env.vector import VectorEnv  # noqa: E402

from .conftest import CONFIG_IDS, CONFIGS  # noqa: E402


class _Reference:
    """Game ``e`` of a ``VectorEnv``: the learner's legs given, the opponent's from ``sample_actions``."""

    def __init__(self, variant, num_envs, e, seed, learner, max_moves, overrides):
        self.venv = VectorEnv(variant, num_envs=num_envs, seed=seed, max_moves=max_moves, **overrides)
        self.e, self.learner = e, learner
        obs, masks, to_move = self.venv.reset()
        self.obs, self.mask, self.to_move = obs[e].copy(), masks[e].copy(), int(to_move[e])
        self._settle()

    def _leg(self, action=None):
        actions = self.venv.sample_actions()
        if action is not None:
            actions[self.e] = action
        out = self.venv.step(actions)
        e = self.e
        self.obs, self.mask, self.to_move = (
            out.observations[e].copy(),
            out.action_masks[e].copy(),
            int(out.agent_to_move[e]),
        )
        self.reward += float(out.rewards[e, self.learner])
        self.terminated |= bool(out.terminations[e])
        self.truncated |= bool(out.truncations[e])

    def _settle(self):
        self.reward, self.terminated, self.truncated = 0.0, False, False
        while self.to_move != self.learner:
            self._leg()

    def step(self, action):
        self.reward, self.terminated, self.truncated = 0.0, False, False
        self._leg(action)
        while self.to_move != self.learner:
            self._leg()
        return self.reward, self.terminated, self.truncated


@pytest.mark.parametrize(("variant", "overrides"), CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize("agent", ["player_0", "player_1"])
def test_step_equal_to_vector_env_with_a_random_opponent(variant, overrides, agent):
    num_envs, seed, max_moves = 4, 11, 40
    learner = 0 if agent == "player_0" else 1
    env = GymVectorEnv(variant, num_envs, agent=agent, seed=seed, max_moves=max_moves, **overrides)
    refs = [_Reference(variant, num_envs, e, seed, learner, max_moves, overrides) for e in range(num_envs)]
    obs, infos = env.reset(seed=seed)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        for e, ref in enumerate(refs):
            np.testing.assert_array_equal(obs[e], ref.obs)
            np.testing.assert_array_equal(infos["action_mask"][e], ref.mask)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]], dtype=np.int64)
        obs, rewards, terminations, truncations, infos = env.step(actions)
        for e, ref in enumerate(refs):
            assert (rewards[e], terminations[e], truncations[e]) == ref.step(int(actions[e]))
        ended += int((terminations | truncations).sum())
    assert ended > 0


def test_make_vec_gives_a_gymnasium_vector_env_with_single_spaces_and_same_step_autoreset():
    envs = gymnasium.make_vec("checkers/international-v0", num_envs=5, vectorization_mode="vector_entry_point",
                              max_moves=30)  # fmt: skip
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert envs.single_action_space == gymnasium.spaces.Discrete(1800)
    assert envs.single_observation_space.shape == (8, 10, 10)
    assert envs.observation_space.shape == (5, 8, 10, 10) and envs.action_space.shape == (5,)
    obs, infos = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    finals = 0
    for _ in range(200):
        obs, rewards, terminations, truncations, infos = envs.step(envs.unwrapped.sample_actions())
        assert rewards.dtype == np.float32 and rewards.shape == (5,)
        np.testing.assert_array_equal(envs.unwrapped.action_masks(), infos["action_mask"].astype(bool))
        done = terminations | truncations
        if done.any():
            np.testing.assert_array_equal(infos["_final_obs"], done)
            for k in np.flatnonzero(done):
                finals += 1
                final = infos["final_obs"][k]
                assert final.shape == (8, 10, 10) and not np.array_equal(final, obs[k])
            assert all(infos["final_obs"][k] is None for k in np.flatnonzero(~done))
        else:
            assert "final_obs" not in infos
    assert finals > 0
    envs.close()


def test_agent_opponent_is_called_once_per_round_for_all_waiting_games():
    pytest.importorskip("agents")
    from agents import make_agent

    minimax = make_agent("minimax:1", "american", seed=0)
    calls = []
    inner = minimax.select_moves

    def counting(boards):
        calls.append(len(boards))
        return inner(boards)

    minimax.select_moves = counting
    env = GymVectorEnv("american", 16, opponent=minimax, agent="alternate", seed=0)
    obs, infos = env.reset(seed=0)
    assert calls == [8]  # the eight games where the opponent moves first, in one call
    total = 0.0
    for _ in range(150):
        calls.clear()
        obs, rewards, terminations, truncations, infos = env.step(env.sample_actions())
        total += rewards.sum()
        assert len(calls) <= 3 and sum(calls) <= 32
        assert (infos["action_mask"].sum(axis=1) > 0).all()
    assert total < -5  # random play loses to minimax:1

    spec_env = gymnasium.make_vec("checkers/russian-v0", num_envs=4, vectorization_mode="vector_entry_point",
                                  opponent="minimax:1", agent="player_1")  # fmt: skip
    spec_env.reset(seed=1)
    assert spec_env.unwrapped.opponent.kind == "agent"
    assert all(spec_env.unwrapped.board(k).ply == 1 for k in range(4))


def test_batched_callable_opponent_and_errors_undo_the_step():
    seen = []

    def first_legal(observations, masks):
        seen.append(len(masks))
        assert observations.shape[1:] == (8, 8, 8)
        return np.argmax(masks, axis=1)

    env = GymVectorEnv("russian", 6, opponent=first_legal, agent="player_1", seed=0)
    env.reset(seed=0)
    assert seen == [6]
    for _ in range(40):
        env.step(env.sample_actions())
    games, masks = env._games.copy(), env.action_masks().copy()

    def failing(observations, masks):
        raise RuntimeError("opponent crashed")

    env.set_opponent(failing)
    with pytest.raises(RuntimeError, match="crashed"):
        env.step(env.sample_actions())
    np.testing.assert_array_equal(env._games, games)
    np.testing.assert_array_equal(env.action_masks(), masks)

    env.set_opponent(lambda observations, masks: np.full(len(masks), 3, dtype=np.int64))
    with pytest.raises(IllegalMoveError, match="opponent played illegal action 3"):
        env.step(env.sample_actions())
    np.testing.assert_array_equal(env._games, games)
    env.set_opponent("random")
    env.step(env.sample_actions())


def test_illegal_learner_actions_lose_or_raise():
    env = GymVectorEnv("american", 3, seed=0)
    obs, infos = env.reset(seed=0)
    actions = env.sample_actions()
    actions[1] = 0
    obs2, rewards, terminations, truncations, infos = env.step(actions)
    assert rewards[1] == -1.0 and terminations[1] and infos["illegal_action"].tolist() == [False, True, False]
    np.testing.assert_array_equal(infos["final_obs"][1], obs[1])
    np.testing.assert_array_equal(obs2[1], obs[1])  # reset: the start position again

    strict = GymVectorEnv("american", 3, seed=0, illegal_action="raise")
    strict.reset(seed=0)
    games = strict._games.copy()
    actions = strict.sample_actions()
    actions[2] = 0
    with pytest.raises(IllegalMoveError, match="game 2"):
        strict.step(actions)
    np.testing.assert_array_equal(strict._games, games)
    with pytest.raises(ValueError, match="shape"):
        strict.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="agent"):
        GymVectorEnv("american", 2, agent="random")
    with pytest.raises(ValueError, match="repetition_draw"):
        GymVectorEnv("american", 2, repetition_draw=3)


def test_sb3_vec_env_trains_maskable_ppo():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecEnv

    from checkers_env.sb3 import SB3VecEnv

    torch.set_num_threads(1)
    venv = SB3VecEnv("american", num_envs=16, agent="alternate", max_moves=60, seed=0)
    assert isinstance(venv, VecEnv) and is_masking_supported(venv)
    assert get_action_masks(venv).shape == (16, 896)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=32,
        batch_size=128,
        n_epochs=1,
        seed=0,
        policy_kwargs={"net_arch": [32]},
        device="cpu",
    )
    model.learn(total_timesteps=1024)
    assert model.num_timesteps >= 1024
    venv.seed(3)
    obs = venv.reset()
    dones_seen = 0
    for _ in range(80):
        masks = get_action_masks(venv)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(16), actions].all()
        venv.step_async(actions)
        obs, rewards, dones, infos = venv.step_wait()
        for k in np.flatnonzero(dones):
            dones_seen += 1
            assert infos[k]["terminal_observation"].shape == (8, 8, 8) and "TimeLimit.truncated" in infos[k]
    assert dones_seen > 0


def test_the_constructor_seed_replays_and_views_are_read_only():
    a = GymVectorEnv("pool", 4, seed=7, copy=False)
    b = GymVectorEnv("pool", 4, seed=7, copy=False)
    a.reset()
    b.reset()
    for _ in range(30):
        out_a = a.step(a.sample_actions())
        out_b = b.step(b.sample_actions())
        np.testing.assert_array_equal(out_a[0], out_b[0])
    with pytest.raises(ValueError):
        out_a[4]["action_mask"][0, 0] = 1
    with pytest.raises(ValueError):
        out_a[0][0, 0, 0, 0] = 1.0
