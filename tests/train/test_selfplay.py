"""Tiny-budget runs of both trainers: checkpoints written and reloaded, resumption, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("tyro")

import agents.alphazero as az  # noqa: E402
from agents.alphazero import SelfPlayConfig  # noqa: E402
from agents.checkpoint import CheckpointError, load_agent  # noqa: E402
from agents.mcts import MCTSConfig  # noqa: E402
from agents.networks import NetConfig  # noqa: E402
from agents.ppo import PPOConfig  # noqa: E402
from checkers_env.core import Board  # noqa: E402
from train import selfplay  # noqa: E402
from train.config import TrainConfig  # noqa: E402

TINY_NET = NetConfig(channels=8, blocks=1, value_hidden=8)


def tiny(run_dir, algo="alphazero", minutes=1e-6, **kw) -> TrainConfig:
    """A run that does one iteration (the budget is checked after each) and no evaluation games."""
    return TrainConfig(
        variant=kw.pop("variant", "american"),
        algo=algo,
        minutes=minutes,
        run_dir=str(run_dir),
        net=TINY_NET,
        mcts=MCTSConfig(simulations=3),
        selfplay=SelfPlayConfig(parallel_games=2, max_moves=12, temperature_moves=4),
        games_per_iteration=kw.pop("games_per_iteration", 2),
        replay_capacity=500,
        batch_size=16,
        sample_reuse=1.0,
        ppo=PPOConfig(num_envs=4, rollout_steps=12, minibatch_size=16, epochs=1, snapshot_every=1),
        eval_games=0,
        final_games=0,
        eval_simulations=3,
        progress=False,
        threads=kw.pop("threads", 1),
        selfplay_workers=kw.pop("selfplay_workers", 1),
        **kw,
    )


def test_alphazero_with_two_self_play_processes(tmp_path):
    result = selfplay.run(tiny(tmp_path / "az2", selfplay_workers=2, games_per_iteration=4))
    assert result["games_played"] == 4
    assert (tmp_path / "az2" / "best.pt").exists()


def _plays(agent, variant="american"):
    board = Board(variant)
    move = agent.select_move(board)
    assert move in board.legal_moves()


def test_alphazero_tiny_run_writes_a_checkpoint_that_loads_as_an_agent(tmp_path):
    result = selfplay.run(tiny(tmp_path / "az"))
    run_dir = tmp_path / "az"
    for name in ("best.pt", "latest.pt", "train_state.pt", "config.json", "train.csv", "samples.pdn", "results.json"):
        assert (run_dir / name).exists(), name
    assert result["iterations"] == 1 and result["games_played"] == 2
    agent = load_agent(run_dir / "best.pt", "american", simulations=3, seed=0)
    assert type(agent).__name__ == "MCTSAgent"
    _plays(agent)
    assert "[GameType" in (run_dir / "samples.pdn").read_text()


def test_ppo_tiny_run_writes_a_checkpoint_that_loads_as_an_agent(tmp_path):
    result = selfplay.run(tiny(tmp_path / "ppo", algo="ppo"))
    assert result["step"] == 1
    agent = load_agent(tmp_path / "ppo" / "best.pt", "american", seed=0)
    assert type(agent).__name__ == "PolicyAgent"
    _plays(agent)


def test_evaluation_writes_the_curve_and_table(tmp_path, capsys):
    cfg = tiny(tmp_path / "ev", eval_opponents=("random",))
    cfg.eval_games = 2
    cfg.final_games = 2
    result = selfplay.run(cfg)
    assert [r["opponent"] for r in result["final"]] == ["random"]
    assert result["final"][0]["games"] == 2
    assert (tmp_path / "ev" / "eval.csv").exists()
    assert (tmp_path / "ev" / "learning_curve.png").stat().st_size > 1000
    assert "random" in capsys.readouterr().out


def test_resumption_continues_from_the_step_it_stopped_at(tmp_path):
    cfg = tiny(tmp_path / "r")
    selfplay.run(cfg)
    first = selfplay.Trainer(cfg)
    assert first.resumed and first.iteration == 1
    steps, games, buffered = first.train_steps, first.games_played, first.buffer.size
    assert steps > 0 and buffered > 0
    selfplay.run(tiny(tmp_path / "r", minutes=first.train_seconds / 60 + 1e-6))
    second = selfplay.Trainer(cfg)
    assert second.iteration == 2
    assert second.train_steps > steps and second.games_played == games + 2
    rows = (tmp_path / "r" / "train.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["1", "2"]


def test_interrupted_selfplay_keeps_its_finished_games(tmp_path, monkeypatch):
    real = az.play_selfplay_games

    def interrupted(*args, on_game=None, **kw):
        real(*args, on_game=on_game, **kw)  # every game finishes and is handed over
        raise KeyboardInterrupt

    monkeypatch.setattr(selfplay, "play_selfplay_games", interrupted)
    cfg = tiny(tmp_path / "i")
    with pytest.raises(KeyboardInterrupt):
        selfplay.run(cfg)
    monkeypatch.setattr(selfplay, "play_selfplay_games", real)
    resumed = selfplay.Trainer(cfg)
    assert resumed.buffer.size > 0 and resumed.untrained_positions == resumed.buffer.size
    selfplay.run(cfg)  # trains on the saved games first
    assert selfplay.Trainer(cfg).train_steps > 0


def test_ppo_resumption_restores_counters(tmp_path):
    cfg = tiny(tmp_path / "p", algo="ppo")
    selfplay.run(cfg)
    t = selfplay.Trainer(cfg)
    assert t.ppo.iteration == 1 and len(t.ppo.pool) == 1


def test_unknown_algo_and_variant_are_rejected(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        selfplay.main(["--algo", "sarsa", "--run-dir", str(tmp_path / "x")])
    assert exc.value.code != 0
    assert selfplay.main(["--variant", "chess", "--run-dir", str(tmp_path / "y")]) == 2
    assert "chess" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()


def test_resuming_with_other_settings_overwrites_nothing(tmp_path):
    cfg = tiny(tmp_path / "m")
    selfplay.run(cfg)
    before = {p: (tmp_path / "m" / p).read_bytes() for p in ("config.json", "train_state.pt", "best.pt")}
    with pytest.raises(CheckpointError, match="algo"):
        selfplay.Trainer(tiny(tmp_path / "m", algo="ppo"))
    bigger = tiny(tmp_path / "m")
    bigger.net = NetConfig(channels=16, blocks=1, value_hidden=8)
    with pytest.raises(CheckpointError, match="net"):
        selfplay.Trainer(bigger)
    assert selfplay.main(["--run-dir", str(tmp_path / "m"), "--algo", "ppo", "--minutes", "0.01"]) == 2
    after = {p: (tmp_path / "m" / p).read_bytes() for p in before}
    assert after == before


def test_corrupt_or_mismatched_checkpoints_get_clear_errors(tmp_path):
    selfplay.run(tiny(tmp_path / "c"))
    best = tmp_path / "c" / "best.pt"
    with pytest.raises(CheckpointError, match="trained on variant 'american', not 'russian'"):
        load_agent(best, "russian")
    with pytest.raises(CheckpointError, match="channels=8, but channels=64"):
        load_agent(best, "american", channels=64)
    with pytest.raises(CheckpointError, match="not found"):
        load_agent(tmp_path / "missing.pt", "american")
    with pytest.raises(CheckpointError, match="not an agent checkpoint"):
        load_agent(tmp_path / "c" / "train_state.pt", "american")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"this is not a checkpoint")
    with pytest.raises(CheckpointError, match="corrupt"):
        load_agent(bad, "american")
    # a corrupt training state refuses to resume and stays as it was
    state = tmp_path / "c" / "train_state.pt"
    state.write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match="corrupt"):
        selfplay.Trainer(tiny(tmp_path / "c"))
    assert state.read_bytes() == b"garbage"
    assert json.loads((tmp_path / "c" / "config.json").read_text())["algo"] == "alphazero"


def test_arena_loads_a_checkpoint_spec(tmp_path):
    from agents import make_agent

    selfplay.run(tiny(tmp_path / "a"))
    agent = make_agent(str(tmp_path / "a" / "best.pt"), "american", seed=3)
    _plays(agent)


def test_selfplay_worker_is_a_pure_function_of_weights_config_and_seed():
    args = (None, TINY_NET, "american", MCTSConfig(simulations=3), SelfPlayConfig(parallel_games=2, max_moves=8))
    a = az.play_selfplay_games(*args, seed=5, num_games=2)
    b = az.play_selfplay_games(*args, seed=5, num_games=2)
    assert [g.moves for g in a] == [g.moves for g in b]
    assert all(np.array_equal(x.policy_probs, y.policy_probs) for x, y in zip(a, b))
    for g in a:
        assert g.policy_actions.shape[1] == az.POLICY_SLOTS
        ok = g.policy_actions >= 0
        assert np.allclose(np.where(ok, g.policy_probs, 0).astype(np.float32).sum(1), 1.0, atol=1e-2)


def test_value_targets_are_discounted_per_move_and_scaled_when_adjudicated():
    colours = np.array([0, 1, 0], dtype=np.int8)
    moves = np.array([0, 1, 4])
    won = az.value_targets(colours, moves, end=5, winner=1, scale=1.0, discount=0.9)
    np.testing.assert_allclose(won, [-(0.9**5), 0.9**4, -0.9], rtol=1e-6)
    held = az.value_targets(colours, moves, end=5, winner=0, scale=0.5, discount=1.0)
    np.testing.assert_allclose(held, [0.5, -0.5, 0.5])
    assert not az.value_targets(colours, moves, end=5, winner=-1, scale=1.0, discount=0.9).any()


def test_selfplay_records_carry_their_value_targets():
    mcts = MCTSConfig(simulations=3, discount=0.95)
    play = SelfPlayConfig(parallel_games=2, max_moves=6, adjudicate_margin=0.5, adjudicated_value=0.5)
    for g in az.play_selfplay_games(None, TINY_NET, "american", mcts, play, seed=1, num_games=2):
        assert g.value_targets.shape == g.colours.shape and g.value_targets.dtype == np.float32
        if g.winner < 0:
            assert not g.value_targets.any()
        else:
            # a game stopped at 6 moves is adjudicated: at most 0.5, discounted
            assert g.adjudicated and 0 < np.abs(g.value_targets).max() <= 0.5
