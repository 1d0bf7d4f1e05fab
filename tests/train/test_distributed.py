"""The Ray backend on a two-node Ray cluster started by the tests (``ray.cluster_utils.Cluster``).

Each cluster is a head and one worker node with one CPU each (so two self-play actors), and a small
object store. Workers import this checkout: the backend starts its Ray job with ``PYTHONPATH`` naming
the folder the driver imports the project from.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("tyro")
pytest.importorskip("ray")

import ray  # noqa: E402
import torch  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from agents.checkpoint import load_agent, read_checkpoint  # noqa: E402
from agents.learned import MCTSAgent  # noqa: E402
from agents.mcts import MCTSConfig  # noqa: E402
from agents.networks import NetConfig, PolicyValueNet  # noqa: E402
from checkers_env.core import Board, get_rules  # noqa: E402
from tests.scripts import ROOT  # noqa: E402
from train import distributed  # noqa: E402
from train.alphazero.config import AlphaZeroConfig, SelfPlayConfig  # noqa: E402
from train.alphazero.replay import GameLog  # noqa: E402
from train.alphazero.selfplay import SelfPlayJob, play_selfplay_games  # noqa: E402
from train.config import TrainConfig  # noqa: E402
from train.distributed import PlayerRecipe, RayBackend  # noqa: E402
from train.run import Run, train  # noqa: E402

NET = NetConfig(channels=8, blocks=1, value_hidden=8)
MCTS = MCTSConfig(simulations=3)
# Actors stream their games ahead of the driver: a test that loses a worker at the first game to arrive
# plays games slow enough (about 30 ms a move) that the worker cannot have finished its share by then.
SLOW_MCTS = MCTSConfig(simulations=128)
ONE_AT_A_TIME = SelfPlayConfig(parallel_games=1, max_moves=12, temperature_moves=4)
STORE = 80 * 2**20


@pytest.fixture(scope="module")
def cluster():
    """A head and one worker node, one CPU each. A test that removes the worker node adds one back."""
    if ray.is_initialized():
        ray.shutdown()
    for attempt in range(2):
        cluster = Cluster()
        try:
            # Ray gives a node 30 s to register; on a busy machine the first try can miss that
            cluster.add_node(num_cpus=1, object_store_memory=STORE, include_dashboard=False)
            cluster.add_node(num_cpus=1, object_store_memory=STORE)
            cluster.wait_for_nodes()
            break
        except Exception:
            cluster.shutdown()
            if attempt:
                raise
    yield cluster
    if ray.is_initialized():
        ray.shutdown()
    cluster.shutdown()


def _worker_node(cluster: Cluster):
    return next(iter(cluster.worker_nodes))


def _restore(cluster: Cluster) -> None:
    if not cluster.worker_nodes:
        cluster.add_node(num_cpus=1, object_store_memory=STORE)
        cluster.wait_for_nodes()


def _weights(seed: int = 0):
    torch.manual_seed(seed)
    return PolicyValueNet(8, NET).state_dict()


def _tiny(run_dir, **kw) -> TrainConfig:
    return TrainConfig(
        variant="american",
        minutes=kw.pop("minutes", 1e-6),
        run_dir=str(run_dir),
        net=NET,
        alphazero=AlphaZeroConfig(
            mcts=kw.pop("mcts", MCTS),
            selfplay=kw.pop("selfplay", SelfPlayConfig(parallel_games=2, max_moves=12, temperature_moves=4)),
            games_per_iteration=kw.pop("games_per_iteration", 4),
            replay_capacity=100_000,
            batch_size=16,
            sample_reuse=1.0,
            eval_simulations=3,
            workers=1,
        ),
        eval_games=kw.pop("eval_games", 0),
        eval_opponents=("random",),
        final_games=kw.pop("final_games", 0),
        progress=False,
        threads=1,
        **kw,
    )


def _is_whole(game, rules, max_moves: int) -> bool:
    """The game's moves replay from the start to an end of the rules or to the move cap."""
    board = Board(rules)
    for move in game.moves:
        board.push(move)
    ended = board.outcome() is not None or len(game.moves) >= max_moves
    arrays = {len(game.observations), len(game.policy_actions), len(game.value_targets)}
    return ended and game.plies == len(game.moves) and arrays == {game.positions}


def test_actors_play_the_local_pools_games_and_evaluations_fan_out(cluster):
    rules = get_rules("american")
    weights = _weights()
    play = SelfPlayConfig(parallel_games=2, max_moves=10, temperature_moves=4, carry_over=False)
    backend = RayBackend(address=cluster.address)
    try:
        arrived = []
        job = SelfPlayJob(weights, NET, rules, MCTS, play, seed=11, num_games=5)
        games = backend.play(job, on_game=arrived.append)
        assert backend.workers == 2
        # one share per actor (3 games, then 2) with seed + k * SHARE_SEED_STRIDE, as the local pool splits them
        expected = play_selfplay_games(job.share(0, 3)) + play_selfplay_games(job.share(1, 2))
        assert len(arrived) == 5 and [g.moves for g in games] == [g.moves for g in expected]
        np.testing.assert_array_equal(games[0].policy_actions, expected[0].policy_actions)

        # carrying: each actor parks the games in progress at the end of its share and resumes them in its next
        carrying = dataclasses.replace(play, carry_over=True)

        def carried() -> int:
            return sum(ray.get(w.handle.info.remote())["carried_games"] for w in backend._workers)

        assert carried() == 0
        first = backend.play(SelfPlayJob(weights, NET, rules, MCTS, carrying, seed=12, num_games=4))
        parked = carried()
        second = backend.play(SelfPlayJob(weights, NET, rules, MCTS, carrying, seed=13, num_games=4))
        assert len(first) == len(second) == 4 and parked > 0  # exactly the games asked for; the rest parked
        backend.play(
            SelfPlayJob(weights, NET, rules, MCTS, play, seed=14, num_games=2)
        )  # carrying off: the carry is dropped
        assert carried() == 0

        net = PolicyValueNet(8, NET)
        net.load_state_dict(weights)
        agent = MCTSAgent(net, rules, MCTSConfig(simulations=3), seed=0)
        doc, results = backend.evaluate(rules, agent, "random", 6, seed=5, max_moves=30)
        assert doc["opponent"] == "random" and doc["games"] == len(results) == 6
        assert doc["wins"] + doc["draws"] + doc["losses"] == 6
        # the openings and colours of the local evaluation, in its order
        from train.arena import paired_openings

        starts = paired_openings(rules, 6, 5)
        assert [(r.opening, r.a_colour == rules.first_player) for r in results] == [
            (o.name, a_first) for o, a_first in starts
        ]
    finally:
        backend.close()


def test_an_evaluation_replays_only_the_openings_its_lost_workers_left(cluster, monkeypatch, capsys):
    rules = get_rules("american")
    net = PolicyValueNet(8, NET)
    net.load_state_dict(_weights())
    # SLOW_MCTS: about a third of a second a game, so neither actor finishes its share of six before the
    # driver handles the first arrival (with 3 simulations, on a busy machine, both once had)
    agent = MCTSAgent(net, rules, SLOW_MCTS, seed=0)
    backend = RayBackend(address=cluster.address)

    class KillOnFirstGame:  # the progress bar sees each game arrive: kill both actors at the first one
        def __init__(self, *args, **kw):
            self.seen = 0

        def update(self, n=1):
            self.seen += n
            if self.seen == 1:
                for w in backend._workers:
                    ray.kill(w.handle, no_restart=False)  # the process dies; Ray restarts the actor

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

    try:
        backend.start()
        monkeypatch.setattr(distributed, "progress_bar", KillOnFirstGame)
        doc, results = backend.evaluate(rules, agent, "random", 12, seed=2, max_moves=40)
        err = capsys.readouterr().err
        assert err.count("lost (") == 2 and "unfinished evaluation games dropped" in err, err
        from train.arena import paired_openings

        starts = paired_openings(rules, 12, 2)
        assert doc["games"] == len(results) == 12  # every opening of the match was played, once
        assert [(r.opening, r.a_colour == rules.first_player) for r in results] == [
            (o.name, a_first) for o, a_first in starts
        ]
    finally:
        backend.close()


def test_a_worker_error_surfaces_in_the_driver(cluster):
    rules = get_rules("american")
    backend = RayBackend(address=cluster.address)
    try:
        torch.manual_seed(0)
        other = PolicyValueNet(8, NetConfig(channels=4, blocks=1, value_hidden=8)).state_dict()
        with pytest.raises(RuntimeError):  # weights of another net size: load_state_dict fails on the actor
            backend.play(SelfPlayJob(other, NET, rules, MCTS, ONE_AT_A_TIME, 0, 2))
    finally:
        backend.close()


def test_a_short_ray_run_writes_what_a_local_run_writes(cluster, tmp_path):
    ray_result = train(_tiny(tmp_path / "ray", backend="ray", ray_address=cluster.address, eval_games=2,
                             final_games=2))  # fmt: skip
    train(_tiny(tmp_path / "local"))
    assert ray_result["last_iteration"]["games_logged"] == 4
    assert ray_result["final"][0]["games"] == 2 and ray_result["curve"][0]["games"] == 2
    for name in ("best.pt", "latest.pt", "train_state.pt", "config.json", "train.csv", "samples.pdn"):
        assert (tmp_path / "ray" / name).exists(), name
    mine, theirs = read_checkpoint(tmp_path / "ray" / "best.pt"), read_checkpoint(tmp_path / "local" / "best.pt")
    assert set(mine) == set(theirs) and mine["net"] == theirs["net"] and mine["mcts"] == theirs["mcts"]
    assert {k: v.shape for k, v in mine["weights"].items()} == {k: v.shape for k, v in theirs["weights"].items()}
    state = torch.load(tmp_path / "ray" / "train_state.pt", weights_only=True)
    local_state = torch.load(tmp_path / "local" / "train_state.pt", weights_only=True)
    assert set(state) == set(local_state) and set(state["learner"]) == set(local_state["learner"])
    agent = load_agent(tmp_path / "ray" / "best.pt", "american", simulations=3, seed=0)
    board = Board("american")
    assert agent.select_move(board) in board.legal_moves()


def test_a_lost_node_drops_only_unfinished_games_and_its_worker_comes_back(cluster, capsys):
    node = _worker_node(cluster)
    rules = get_rules("american")
    backend = RayBackend(address=cluster.address)
    try:
        arrived = []

        def on_game(game) -> None:
            arrived.append(game)
            if len(arrived) == 1:  # each actor has 3 more games to play: lose one of them with its node
                cluster.remove_node(node)

        games = backend.play(
            SelfPlayJob(_weights(), NET, rules, SLOW_MCTS, ONE_AT_A_TIME, seed=3, num_games=8), on_game=on_game
        )
        err = capsys.readouterr().err
        assert "lost (node died)" in err and "queued again" in err, err
        assert len(games) == len(arrived) == 8  # the lost share was played again by the other actor
        assert all(_is_whole(g, rules, ONE_AT_A_TIME.max_moves) for g in games)
        assert backend.workers == 1
        cluster.add_node(num_cpus=1, object_store_memory=STORE)  # room again: Ray restarts the lost actor
        assert backend.wait_for_workers(2, timeout=90) == 2
        assert "is back" in capsys.readouterr().err
        assert len(backend.play(SelfPlayJob(_weights(), NET, rules, MCTS, ONE_AT_A_TIME, seed=4, num_games=4))) == 4
    finally:
        backend.close()
        _restore(cluster)


def test_removing_a_worker_node_mid_run_leaves_training_going(cluster, tmp_path, monkeypatch, capsys):
    node = _worker_node(cluster)
    real_play = RayBackend.play
    calls = []

    def play(self, *args, on_game=None, **kw):
        calls.append(0)
        if len(calls) == 3:  # two iterations are enough: stop the run as Ctrl-C would
            raise KeyboardInterrupt

        def received(game) -> None:
            on_game(game)
            if len(calls) == 1 and cluster.worker_nodes:  # the first game of the run has arrived
                cluster.remove_node(node)

        return real_play(self, *args, on_game=received, **kw)

    monkeypatch.setattr(distributed.RayBackend, "play", play)
    # eval_every_minutes: only the evaluation at minute 0, however slowly a loaded machine plays the iterations
    cfg = _tiny(tmp_path / "lost", backend="ray", ray_address=cluster.address, minutes=30, selfplay=ONE_AT_A_TIME,
                mcts=SLOW_MCTS, games_per_iteration=6, eval_games=2, eval_every_minutes=1e6)  # fmt: skip
    try:
        with pytest.raises(KeyboardInterrupt):
            train(cfg)
    finally:
        _restore(cluster)
    err = capsys.readouterr().err
    assert "lost (node died)" in err, err
    run = Run(_tiny(tmp_path / "lost"))
    try:
        assert run.iteration == 2  # the iteration that lost the node, and one more on the worker left
        assert [(row["opponent"], row["games"]) for row in run.history["eval"]] == [("random", 2)]
        log = run.learner.log
        assert log.count == 6 * 2  # every iteration logged exactly its games
        games = [g for _, g in GameLog(log.folder).read()]
        assert len(games) == log.count and all(_is_whole(g, "american", 12) for g in games)
        assert run.learner.buffer.size == sum(g.positions for g in games)  # the buffer holds those, whole
    finally:
        run.close()
    agent = load_agent(tmp_path / "lost" / "best.pt", "american", simulations=3, seed=0)
    assert agent.select_move(Board("american")) in Board("american").legal_moves()


def test_sigterm_stops_a_ray_run_that_resumes_like_a_local_one(tmp_path):
    """The command line with a local Ray started for the run: SIGTERM exits 130 with the finished games
    logged, and the folder resumes (here with the local backend: the folder does not depend on it)."""
    if ray.is_initialized():
        ray.shutdown()
    run_dir = tmp_path / "term"
    # an iteration long enough that the signal lands inside it (tiny games take milliseconds: with 40 the
    # actors had sometimes finished them all before the signal arrived)
    iteration_games = 400
    args = [sys.executable, "-m", "train.selfplay", "--backend", "ray", "--minutes", "5", "--run-dir", str(run_dir),
            "--net.channels", "8", "--net.blocks", "1", "--net.value-hidden", "8", "--alphazero.mcts.simulations", "3",
            "--alphazero.selfplay.parallel-games", "1", "--alphazero.selfplay.max-moves", "12",
            "--alphazero.games-per-iteration", str(iteration_games), "--alphazero.eval-simulations", "3", "--eval-games", "0",
            "--final-games", "0", "--threads", "1", "--no-progress"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 300
        logged = 0
        while time.monotonic() < deadline and proc.poll() is None and not logged:
            time.sleep(0.1)
            logged = sum(f.stat().st_size for f in (run_dir / "replay").glob("games-*.bin")) if run_dir.exists() else 0
        assert proc.poll() is None and logged, "no self-play game was logged in 300 s"
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, out
    assert "resume with --run-dir" in out
    logged = GameLog(run_dir / "replay").count
    assert 1 <= logged < iteration_games  # stopped inside the iteration
    cfg = _tiny(run_dir, games_per_iteration=iteration_games, selfplay=SelfPlayConfig(parallel_games=8, max_moves=12))
    result = train(cfg)  # the games logged before the signal count: only the rest are played
    assert result["last_iteration"]["games"] == iteration_games - logged
    assert result["last_iteration"]["games_logged"] == iteration_games


def test_ray_options_are_checked(tmp_path, capsys):
    from train import selfplay

    assert selfplay.main(["--ray-address", "auto", "--run-dir", str(tmp_path / "x")]) == 2
    assert "--backend ray" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    # nothing listens there: a clear error at once, not Ray's minutes of retries
    assert selfplay.main(["--backend", "ray", "--ray-address", "127.0.0.1:1", "--run-dir", str(tmp_path / "y")]) == 2
    assert "no Ray cluster answers at '127.0.0.1:1'" in capsys.readouterr().err


def test_a_player_recipe_rebuilds_the_agents_search_settings():
    net = PolicyValueNet(8, NET)
    net.load_state_dict(_weights())
    agent = MCTSAgent(net, "american", MCTSConfig(simulations=5, root="gumbel"), seed=4, time=0.5, dtype="bfloat16")
    rebuilt = PlayerRecipe.of(agent).build()
    assert (rebuilt.mcts_config, rebuilt.time, rebuilt.dtype, rebuilt.seed) == (agent.mcts_config, 0.5, "bfloat16", 4)
    board = Board("american")
    assert rebuilt.select_move(board) == agent.select_move(Board("american"))
