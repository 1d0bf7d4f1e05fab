"""Self-play in worker processes: same records as the worker function, reproducible order, errors surface."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.mcts import MCTSConfig  # noqa: E402
from agents.networks import NetConfig, PolicyValueNet  # noqa: E402
from agents.runtime import usable_cores  # noqa: E402
from checkers_env.core import get_rules  # noqa: E402
from train.alphazero.config import SelfPlayConfig  # noqa: E402
from train.alphazero.selfplay import SelfPlayJob, play_selfplay_games  # noqa: E402
from train.alphazero.workers import SelfPlayPool, worker_batch  # noqa: E402

NET = NetConfig(channels=8, blocks=1, value_hidden=8)
MCTS = MCTSConfig(simulations=3)
PLAY = SelfPlayConfig(parallel_games=2, max_moves=10, temperature_moves=4, full_search_share=1.0,  # every leg stored
                      carry_over=False)  # each call plays its games from the start: reproducible  # fmt: skip


def _weights(seed: int, net: NetConfig = NET):
    import torch

    torch.manual_seed(seed)
    return PolicyValueNet(8, net).state_dict()


def test_pool_plays_each_share_as_the_worker_function_does():
    rules = get_rules("american")
    weights = _weights(0)
    arrived = []
    with SelfPlayPool(2) as pool:
        job = SelfPlayJob(weights, NET, rules, MCTS, PLAY, seed=11, num_games=5)
        games = pool.play(job, on_game=arrived.append, dynamic=False)
        again = pool.play(job, dynamic=False)
    assert len(games) == len(arrived) == 5
    # worker k plays its share (3 games, then 2) with seed + k * SHARE_SEED_STRIDE, in finishing order
    expected = play_selfplay_games(job.share(0, 3)) + play_selfplay_games(job.share(1, 2))
    for got, want, repeat in zip(games, expected, again):
        assert got.moves == want.moves == repeat.moves
        np.testing.assert_array_equal(got.policy_actions, want.policy_actions)
        assert got.winner == want.winner


def test_dynamic_sharing_plays_exactly_the_games_asked_for():
    rules = get_rules("american")
    weights = _weights(0)
    with SelfPlayPool(2) as pool:
        for total in (1, 5, 8):
            arrived = []
            games = pool.play(
                SelfPlayJob(weights, NET, rules, MCTS, PLAY, seed=3, num_games=total), on_game=arrived.append
            )
            assert len(games) == len(arrived) == total
            assert all(g.plies > 0 and g.positions > 0 for g in games)


def test_pooled_workers_park_games_for_the_next_iteration_and_resume_them():
    from dataclasses import replace

    rules = get_rules("american")
    weights = _weights(0)
    carrying = replace(PLAY, parallel_games=3, max_moves=14, carry_over=True)
    with SelfPlayPool(2) as pool:
        first = pool.play(SelfPlayJob(weights, NET, rules, MCTS, carrying, seed=5, num_games=6))
        parked = [p.board.move_stack for p in pool._carry.games if hasattr(p, "board")]
        second = pool.play(SelfPlayJob(weights, NET, rules, MCTS, carrying, seed=6, num_games=6))
        # other rules: the parked american games are dropped, not resumed on a russian board
        third = pool.play(SelfPlayJob(weights, NET, "russian", MCTS, carrying, seed=7, num_games=2))
    assert len(first) == len(second) == 6 and len(third) == 2
    assert parked  # slots freed at the end of the first iteration played on
    prefixes = [[str(m) for m in stack] for stack in parked if stack]
    assert any(g.moves[: len(p)] == p for g in second for p in prefixes)


def test_carrying_workers_keep_their_whole_batch_busy_in_a_short_iteration():
    # carrying, games are counted as they end, so a worker's batch is parallel_games whatever the iteration
    assert worker_batch(64, 2, 64, carrying=True) == 64
    assert worker_batch(96, 2, 64, carrying=True) == 64
    assert worker_batch(4, 2, 64, carrying=True) == 4  # never more slots than the iteration's games
    assert worker_batch(256, 2, 64, carrying=True) == 64
    # not carrying, a worker starts three quarters of its even share (at most parallel_games)
    assert worker_batch(64, 2, 64, carrying=False) == 24
    assert worker_batch(5, 2, 64, carrying=False) == 3
    assert worker_batch(1024, 2, 64, carrying=False) == 64
    assert worker_batch(1, 4, 64, carrying=False) == 1


def test_pool_reports_a_worker_error():
    rules = get_rules("american")
    with SelfPlayPool(1) as pool, pytest.raises(RuntimeError):
        # weights of another net size: load_state_dict fails in the worker
        pool.play(
            SelfPlayJob(_weights(0, NetConfig(channels=4, blocks=1, value_hidden=8)), NET, rules, MCTS, PLAY, 0, 2)
        )


def test_usable_cores():
    assert 1 <= usable_cores() <= (__import__("os").cpu_count() or 1)
