"""The agent protocol and the spec registry."""

from __future__ import annotations

import numpy as np
import pytest

from agents import Agent, AgentSpecError, MinimaxAgent, RandomAgent, make_agent, register_agent_kind
from checkers_env.core import Board


def test_random_agent_is_seeded_and_legal():
    board = Board("russian")
    picks = [str(RandomAgent(seed=4).select_move(board)) for _ in range(3)]
    assert len(set(picks)) == 1
    agent = RandomAgent(seed=4)
    seen = {str(agent.select_move(board)) for _ in range(60)}
    assert seen == {str(m) for m in board.legal_moves()}


def test_random_agent_reset_replays():
    agent = RandomAgent(seed=1)
    board = Board("american")
    first = [str(agent.select_move(board)) for _ in range(5)]
    agent.reset()
    assert [str(agent.select_move(board)) for _ in range(5)] == first
    agent.reset(2)
    assert agent.seed == 2


def test_random_agent_select_action_respects_the_mask():
    mask = np.zeros(896, dtype=np.int8)
    mask[[3, 70, 500]] = 1
    agent = RandomAgent(seed=0)
    assert {agent.select_action(np.zeros(1), mask) for _ in range(50)} == {3, 70, 500}
    with pytest.raises(ValueError):
        agent.select_action(np.zeros(1), np.zeros(896, dtype=np.int8))


def test_minimax_needs_a_board():
    with pytest.raises(TypeError, match="select_move"):
        MinimaxAgent(depth=1).select_action(np.zeros(1), np.ones(4))


@pytest.mark.parametrize(
    "spec, depth, time, nodes",
    [("minimax:3", 3, 0.0, 0), ("minimax:6:0.5", 6, 0.5, 0), ("minimax:nodes=500", None, 0.0, 500)],
)
def test_minimax_specs(spec, depth, time, nodes):
    agent = make_agent(spec, "american", seed=1)
    assert isinstance(agent, MinimaxAgent)
    assert agent.name == spec
    assert agent.time == time and agent.nodes == nodes
    if depth is not None:
        assert agent.depth == depth


def test_random_spec():
    assert isinstance(make_agent("random", "czech", seed=0), RandomAgent)


@pytest.mark.parametrize(
    "spec", ["", "alphabeta:3", "minimax:x", "minimax:0", "minimax:3:4:5", "minimax:speed=3", "random:3"]
)
def test_bad_specs_raise_clear_errors(spec):
    with pytest.raises(AgentSpecError):
        make_agent(spec, "american")


def test_missing_checkpoint(tmp_path):
    with pytest.raises(AgentSpecError, match="not found"):
        make_agent(str(tmp_path / "missing.pt"), "american")


def test_registry_accepts_new_kinds():
    class Greedy(Agent):
        def select_move(self, board):
            return max(board.legal_moves(), key=lambda m: len(m.captures))

    register_agent_kind("greedy-test", lambda args, variant, seed: Greedy(seed), "greedy-test")
    agent = make_agent("greedy-test", "american", seed=3)
    assert isinstance(agent, Greedy) and agent.name == "greedy-test"
