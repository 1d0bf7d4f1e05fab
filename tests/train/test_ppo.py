"""PPO's credit assignment over the learner's own decisions, and the policy agent."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from train.ppo import learner_advantages  # noqa: E402


def test_reward_on_the_opponents_step_goes_to_the_learners_last_decision():
    # env steps: learner acts (t=0), opponent acts and wins (t=1); then a new game: learner acts (t=2)
    rewards = np.array([[0.0], [-1.0], [0.0]], dtype=np.float32)
    dones = np.array([[False], [True], [False]])
    valid = np.array([[True], [False], [True]])
    values = np.array([[0.2], [0.0], [0.5]], dtype=np.float32)
    adv = learner_advantages(rewards, dones, valid, values, np.array([0.3], dtype=np.float32), 0.9, 0.8)
    assert adv[0, 0] == pytest.approx(-1.0 - 0.2)  # nothing from the next game leaks back
    assert adv[1, 0] == 0.0  # not a learner step
    assert adv[2, 0] == pytest.approx(0.9 * 0.3 - 0.5)  # bootstrapped


def test_gae_chains_across_the_learners_decisions_within_a_game():
    # learner at t=0 and t=2 (opponent at t=1); the learner's own move at t=2 wins
    rewards = np.array([[0.0], [0.0], [1.0]], dtype=np.float32)
    dones = np.array([[False], [False], [True]])
    valid = np.array([[True], [False], [True]])
    values = np.array([[0.1], [0.0], [0.4]], dtype=np.float32)
    gamma, lam = 0.9, 0.5
    adv = learner_advantages(rewards, dones, valid, values, np.array([0.7], dtype=np.float32), gamma, lam)
    last = 1.0 - 0.4
    assert adv[2, 0] == pytest.approx(last)
    assert adv[0, 0] == pytest.approx((gamma * 0.4 - 0.1) + gamma * lam * last)
