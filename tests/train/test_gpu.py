"""The learners and players on a CUDA device (marked ``gpu``: deselected by default, run with ``-m gpu``).

CI has no GPU; these run where one is, to show that what the README's scaling rule says to do on a GPU
(``--device cuda``) trains, checkpoints and plays, and that the GPU's evaluations agree with the CPU's.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tyro")

from agents.checkpoint import load_agent  # noqa: E402
from agents.learned import MCTSAgent, make_evaluator  # noqa: E402
from agents.mcts import MCTSConfig  # noqa: E402
from agents.networks import NetConfig, PolicyValueNet  # noqa: E402
from checkers_env.core import Board, get_rules  # noqa: E402
from checkers_env.game import random_observations  # noqa: E402
from tests.train.test_run import tiny  # noqa: E402
from train.run import train  # noqa: E402

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


@pytest.mark.parametrize("variant", ["american", "international"])
def test_cuda_evaluations_agree_with_the_cpu(variant):
    rules = get_rules(variant)
    torch.manual_seed(0)
    net = PolicyValueNet(rules.board_size, NetConfig(channels=32, blocks=3))
    obs, masks = random_observations(variant, 64)
    cpu_priors, cpu_values = make_evaluator(net, "cpu")(obs, masks)
    for dtype, tolerance in (("float32", 1e-3), ("bfloat16", 3e-2)):
        priors, values = make_evaluator(net, "cuda", dtype=dtype)(obs, masks)
        assert priors.dtype == np.float32 and values.dtype == np.float32
        assert np.abs(priors - cpu_priors).max() < tolerance, dtype
        assert np.abs(values - cpu_values).max() < tolerance, dtype
        assert np.all(priors[masks == 0] == 0), "an illegal leg got probability on the GPU"
    assert next(net.parameters()).device.type == "cuda"  # make_evaluator moved it; the bfloat16 copy did not


def test_alphazero_trains_on_cuda_with_two_self_play_processes(tmp_path):
    cfg = tiny(tmp_path / "az", workers=2, games_per_iteration=4, device="cuda")
    result = train(cfg)
    assert result["last_iteration"]["games_logged"] == 4
    assert result["last_iteration"]["train_steps"] >= 1
    state = torch.load(tmp_path / "az" / "best.pt", map_location="cpu", weights_only=False)
    assert state  # written from the GPU, read on a machine without one
    for device in ("cpu", "cuda"):
        agent = load_agent(tmp_path / "az" / "best.pt", "american", simulations=3, seed=0, device=device)
        board = Board("american")
        assert agent.select_move(board) in board.legal_moves()


def test_ppo_trains_on_cuda(tmp_path):
    result = train(tiny(tmp_path / "ppo", algo="ppo", device="cuda"))
    assert result["step"] == 1
    agent = load_agent(tmp_path / "ppo" / "best.pt", "american", seed=0, device="cpu")
    board = Board("american")
    assert agent.select_move(board) in board.legal_moves()


def test_an_mcts_agent_searches_on_cuda_as_on_the_cpu():
    rules = get_rules("russian")
    torch.manual_seed(1)
    net = PolicyValueNet(rules.board_size, NetConfig(channels=16, blocks=1))
    config = MCTSConfig(simulations=32)
    board = Board("russian")
    moves = [
        MCTSAgent(copy.deepcopy(net), rules, config, seed=3, device=device).select_move(board)
        for device in ("cpu", "cuda")
    ]
    assert moves[0] in board.legal_moves() and moves[1] in board.legal_moves()
