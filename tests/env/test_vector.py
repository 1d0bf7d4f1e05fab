"""VectorEnv: same encoding and trajectories as the AEC env; arrays, autoreset, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from checkers_env.aec import raw_env
from checkers_env.vector import VectorEnv

from .conftest import CONFIG_IDS, CONFIGS


@pytest.mark.parametrize(("variant", "overrides"), CONFIGS, ids=CONFIG_IDS)
def test_same_trajectories_as_the_aec_env(variant, overrides):
    num_envs, steps = 3, 250
    venv = VectorEnv(variant, num_envs=num_envs, seed=5, max_moves=60, **overrides)
    aecs = [raw_env(variant, max_moves=60, **overrides) for _ in range(num_envs)]
    for e in aecs:
        e.reset(seed=5)
    obs, masks, to_move = venv.reset()
    rng = np.random.default_rng(9)
    ended = 0
    for _ in range(steps):
        for i, e in enumerate(aecs):
            agent = e.agent_selection
            assert to_move[i] == e.possible_agents.index(agent)
            seen = e.observe(agent)
            np.testing.assert_array_equal(obs[i], seen["observation"])
            np.testing.assert_array_equal(masks[i], seen["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)
        out = venv.step(actions)
        for i, e in enumerate(aecs):
            e.step(int(actions[i]))
            rewards = [e.rewards[a] for a in e.possible_agents]
            np.testing.assert_array_equal(out.rewards[i], rewards)
            assert out.terminations[i] == any(e.terminations.values())
            assert out.truncations[i] == any(e.truncations.values())
            if out.terminations[i] or out.truncations[i]:
                ended += 1
                e.reset(seed=5)
        obs, masks, to_move = out.observations, out.action_masks, out.agent_to_move
    assert ended > 0


def test_shapes_dtypes_and_read_only_outputs():
    venv = VectorEnv("international", num_envs=3, seed=0)
    obs, masks, to_move = venv.reset()
    assert obs.shape == (3, 8, 10, 10) and obs.dtype == np.float32
    assert masks.shape == (3, 1800) and masks.dtype == np.int8
    assert to_move.tolist() == [0, 0, 0]
    out = venv.step(venv.sample_actions())
    assert out.rewards.shape == (3, 2) and out.terminations.dtype == np.bool_
    assert out.agent_to_move.tolist() == [1, 1, 1]
    with pytest.raises(ValueError):
        out.action_masks[0, 0] = 1


def test_sample_actions_are_legal_and_seeded():
    a = VectorEnv("russian", num_envs=64, seed=3)
    b = VectorEnv("russian", num_envs=64, seed=3)
    for _ in range(300):
        x, y = a.sample_actions(), b.sample_actions()
        np.testing.assert_array_equal(x, y)
        out = a.step(x)
        b.step(y)
    assert (out.action_masks.sum(axis=1) > 0).all()


def test_games_end_and_reset_automatically():
    venv = VectorEnv("american", num_envs=16, seed=1)
    wins = 0
    for _ in range(2000):
        out = venv.step(venv.sample_actions())
        done = out.terminations
        wins += int(np.abs(out.rewards[done]).sum(axis=1).astype(bool).sum())
        assert (out.rewards.sum(axis=1) == 0).all()
    assert wins > 0
    assert venv.board(0).ply < 200


def test_illegal_actions_raise_and_change_nothing():
    venv = VectorEnv("american", num_envs=4, seed=0)
    obs, masks, _ = venv.reset()
    before = venv.states
    good = venv.sample_actions()
    bad = good.copy()
    bad[2] = next(a for a in range(896) if masks[2, a] == 0)
    with pytest.raises(ValueError, match="game 2"):
        venv.step(bad)
    bad[2] = 896
    with pytest.raises(ValueError, match="game 2"):
        venv.step(bad)
    with pytest.raises(ValueError, match="shape"):
        venv.step(good[:3])
    with pytest.raises(ValueError, match="integer"):
        venv.step(good.astype(np.float64))
    np.testing.assert_array_equal(venv.states, before)
    venv.step(good)


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="num_envs"):
        VectorEnv("american", num_envs=0)
    with pytest.raises(ValueError, match="repetition"):
        VectorEnv("american", num_envs=2, repetition_draw=3)
    with pytest.raises(ValueError, match="unknown variant"):
        VectorEnv("chess", num_envs=2)


def test_observations_off_keeps_masks_rewards_and_positions():
    """``observations=False`` skips the planes only: the games play out identically."""
    from checkers_env.vector import VectorEnv

    with_planes = VectorEnv("russian", num_envs=16, seed=3)
    without = VectorEnv("russian", num_envs=16, seed=3, observations=False)
    with_planes.reset()
    without.reset()
    for _ in range(300):
        actions = with_planes.sample_actions()
        assert np.array_equal(actions, without.sample_actions())
        a = with_planes.step(actions)
        b = without.step(actions)
        assert np.array_equal(a.action_masks, b.action_masks)
        assert np.array_equal(a.rewards, b.rewards)
        assert np.array_equal(a.terminations, b.terminations)
        assert np.array_equal(with_planes.states, without.states)
        assert not b.observations.any()
    assert a.observations.any()
