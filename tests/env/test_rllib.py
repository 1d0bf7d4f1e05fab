"""The RLlib adapter: turns, masks and rewards as RLlib's multi-agent episodes expect them, the
registered env, the example's masking module, and the example's smoke run."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from ray.rllib.env.multi_agent_episode import MultiAgentEpisode  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from checkers_env.encoding import move_to_actions  # noqa: E402
from checkers_env.rllib import ENV_NAME, CheckersMultiAgentEnv, register  # noqa: E402
from tests.scripts import ROOT, load_script  # noqa: E402

from .conftest import random_positions  # noqa: E402


def _legal(obs: dict) -> np.ndarray:
    return np.flatnonzero(obs["action_mask"])


def test_only_the_agent_to_move_observes_with_its_mask():
    env = CheckersMultiAgentEnv("american")
    obs, infos = env.reset(seed=0)
    assert list(obs) == ["player_0"] and list(infos) == ["player_0"]  # Black moves first in american
    seen = obs["player_0"]
    assert env.observation_spaces["player_0"].contains(seen)
    assert seen["observations"].shape == (8, 8, 8) and seen["action_mask"].dtype == np.float32
    assert sorted(_legal(seen)) == sorted(env.game.legal_actions())
    assert env.action_spaces["player_1"].n == 896 and env.get_action_space("player_0").n == 896
    obs, rewards, terminateds, truncateds, _ = env.step({"player_0": int(_legal(seen)[0])})
    assert list(obs) == ["player_1"] and rewards == {"player_0": 0.0}
    assert terminateds["__all__"] is False and truncateds["__all__"] is False
    with pytest.raises(ValueError, match="player_1's turn"):
        env.step({"player_0": 0})


def test_a_multi_leg_capture_asks_the_same_agent_again():
    board = next(b for b in random_positions("russian", 3000, seed=3) if any(len(m.path) > 1 for m in b.legal_moves()))
    move = next(m for m in board.legal_moves() if len(m.path) > 1)
    env = CheckersMultiAgentEnv("russian")
    obs, _ = env.reset(options={"fen": board.fen()})
    (mover,) = obs
    for action in move_to_actions(move, 8, int(board.turn)):
        assert list(obs) == [mover] and obs[mover]["action_mask"][action] == 1
        obs, *_ = env.step({mover: action})
    assert list(obs) != [mover]


def test_the_end_gives_both_agents_their_reward_and_last_observation():
    env = CheckersMultiAgentEnv("american")
    obs, _ = env.reset(options={"fen": "W:W18:B14"})  # White jumps 18x9 and Black has nothing left
    (winner,) = obs
    loser = next(a for a in env.possible_agents if a != winner)
    obs, rewards, terminateds, truncateds, infos = env.step({winner: int(_legal(obs[winner])[0])})
    assert set(obs) == {winner, loser} and rewards == {winner: 1.0, loser: -1.0}
    assert terminateds == {winner: True, loser: True, "__all__": True} and truncateds["__all__"] is False
    assert infos[winner]["result"] == "win" and infos[loser]["result"] == "loss"
    assert all(env.observation_spaces[a].contains(o) and not o["action_mask"].any() for a, o in obs.items())
    with pytest.raises(ValueError, match="reset"):
        env.step({loser: 0})


def test_the_move_cap_truncates_both_agents_with_no_reward():
    env = CheckersMultiAgentEnv("american", max_moves=2)
    obs, _ = env.reset()
    for _ in range(2):
        (agent,) = obs
        obs, rewards, terminateds, truncateds, _ = env.step({agent: int(_legal(obs[agent])[0])})
    assert set(obs) == set(env.possible_agents) and set(rewards.values()) == {0.0}
    assert truncateds == {"player_0": True, "player_1": True, "__all__": True} and terminateds["__all__"] is False


def test_an_illegal_action_loses_the_game():
    env = CheckersMultiAgentEnv("american")
    obs, _ = env.reset()
    illegal = int(np.flatnonzero(obs["player_0"]["action_mask"] == 0)[0])
    _, rewards, terminateds, _, infos = env.step({"player_0": illegal})
    assert rewards == {"player_0": -1.0, "player_1": 0.0} and terminateds["__all__"]
    assert "illegal" in infos["player_0"]["result"]


def test_rllibs_env_check_and_episodes_accept_whole_games():
    env = CheckersMultiAgentEnv("american", max_moves=80)
    check_multiagent_environments(env)
    rng = np.random.default_rng(0)
    for _ in range(6):
        episode = MultiAgentEpisode(observation_space=env.observation_space, action_space=env.action_space)
        obs, infos = env.reset()
        episode.add_env_reset(observations=obs, infos=infos)
        legs = {a: 0 for a in env.possible_agents}
        while not episode.is_done:
            (agent,) = obs
            action = {agent: int(rng.choice(_legal(obs[agent])))}
            legs[agent] += 1
            obs, rewards, terminateds, truncateds, infos = env.step(action)
            episode.add_env_step(obs, action, rewards, infos, terminateds=terminateds, truncateds=truncateds)
        # every leg is one step of its agent's episode, and the final reward reaches both agents
        assert {a: len(episode.agent_episodes[a]) for a in legs} == legs
        assert {a: episode.agent_episodes[a].get_return() for a in legs} == rewards


def test_register_makes_the_env_from_its_config():
    from ray.tune.registry import ENV_CREATOR, _global_registry

    assert register() == ENV_NAME == "checkers_env"
    env = _global_registry.get(ENV_CREATOR, ENV_NAME)({"variant": "international", "max_moves": 10})
    assert isinstance(env, CheckersMultiAgentEnv) and env.rules.name == "international"
    assert env.action_spaces["player_0"].n == 1800


def _example():
    return load_script("examples/rllib_selfplay.py")


def test_the_example_module_never_offers_an_illegal_leg():
    import torch
    from ray.rllib.core.columns import Columns

    example = _example()
    env = CheckersMultiAgentEnv("american")
    module = example.MaskedConvModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"channels": 4},
    )
    boards = random_positions("american", 16, seed=1)
    seen = []
    for board in boards:
        obs, _ = env.reset(options={"fen": board.fen()})
        seen.append(next(iter(obs.values())))
    seen.append({"observations": seen[0]["observations"], "action_mask": np.zeros(896, dtype=np.float32)})
    batch = {Columns.OBS: {k: torch.from_numpy(np.stack([s[k] for s in seen])) for k in seen[0]}}
    out = module.forward_exploration(batch)
    logits = out[Columns.ACTION_DIST_INPUTS]
    assert torch.isfinite(logits).all()  # a final observation (no legal leg) too
    probs = torch.softmax(logits[:-1], dim=-1).numpy()
    masks = np.stack([s["action_mask"] for s in seen[:-1]])
    assert np.all(probs[masks == 0] == 0) and np.allclose(probs.sum(-1), 1)
    assert module.compute_values(batch).shape == (len(seen),)


def test_the_example_smoke_run_reports_a_reward():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("RAY_ADDRESS", None)
    done = subprocess.run([sys.executable, os.path.join("examples", "rllib_selfplay.py"), "--smoke"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=540)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert re.search(r"iteration 3: mean reward of main [+-]\d\.\d{3}", done.stdout), done.stdout
    assert re.search(r"^mean reward of main: [+-]\d\.\d{3}$", done.stdout, re.M), done.stdout
