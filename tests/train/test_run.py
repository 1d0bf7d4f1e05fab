"""Tiny-budget runs of both learners through the run loop: checkpoints, resumption, kills, bad input."""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("tyro")

import torch  # noqa: E402

from agents.checkpoint import CheckpointError, load_agent  # noqa: E402
from agents.mcts import MCTSConfig  # noqa: E402
from agents.networks import NetConfig  # noqa: E402
from checkers_env.core import Board  # noqa: E402
from checkers_env.core.files import TEMP_PREFIX  # noqa: E402
from train import run as run_module  # noqa: E402
from train import selfplay  # noqa: E402
from train.alphazero import selfplay as az_selfplay  # noqa: E402
from train.alphazero.config import AlphaZeroConfig, SelfPlayConfig  # noqa: E402
from train.config import TrainConfig  # noqa: E402
from train.ppo import PPOConfig  # noqa: E402
from train.run import Run, train  # noqa: E402

TINY_NET = NetConfig(channels=8, blocks=1, value_hidden=8)


def tiny(run_dir, algo="alphazero", minutes=1e-6, **kw) -> TrainConfig:
    """A run that does one iteration (the budget is checked after each) and no evaluation games."""
    return TrainConfig(
        variant=kw.pop("variant", "american"),
        algo=algo,
        minutes=minutes,
        run_dir=str(run_dir),
        net=TINY_NET,
        alphazero=AlphaZeroConfig(
            mcts=MCTSConfig(simulations=3),
            selfplay=SelfPlayConfig(parallel_games=2, max_moves=12, temperature_moves=4),
            games_per_iteration=kw.pop("games_per_iteration", 2),
            replay_capacity=500,
            batch_size=16,
            sample_reuse=1.0,
            eval_simulations=3,
            workers=kw.pop("workers", 1),
        ),
        ppo=PPOConfig(num_envs=4, rollout_steps=12, minibatch_size=16, epochs=1, snapshot_every=1),
        eval_games=0,
        final_games=0,
        progress=False,
        threads=kw.pop("threads", 1),
        **kw,
    )


def _plays(agent, variant="american"):
    board = Board(variant)
    move = agent.select_move(board)
    assert move in board.legal_moves()


def test_alphazero_with_two_self_play_processes(tmp_path):
    result = train(tiny(tmp_path / "az2", workers=2, games_per_iteration=4))
    assert result["last_iteration"]["games_logged"] == 4
    assert (tmp_path / "az2" / "best.pt").exists()


def test_alphazero_tiny_run_writes_a_checkpoint_that_loads_as_an_agent(tmp_path):
    result = train(tiny(tmp_path / "az"))
    run_dir = tmp_path / "az"
    for name in ("best.pt", "latest.pt", "train_state.pt", "config.json", "train.csv", "samples.pdn", "results.json"):
        assert (run_dir / name).exists(), name
    assert result["iterations"] == 1 and result["last_iteration"]["games"] == 2
    agent = load_agent(run_dir / "best.pt", "american", simulations=3, seed=0)
    assert type(agent).__name__ == "MCTSAgent"
    _plays(agent)
    assert "[GameType" in (run_dir / "samples.pdn").read_text()


def test_a_run_with_a_material_head_logs_its_loss_and_its_checkpoint_plays(tmp_path):
    cfg = tiny(tmp_path / "m")
    cfg.net = NetConfig(channels=8, blocks=1, value_hidden=8, material_head=True)
    result = train(cfg)
    assert result["last_iteration"]["material_loss"] >= 0
    agent = load_agent(tmp_path / "m" / "best.pt", "american", simulations=3, seed=0)
    board = Board("american")
    assert agent.select_move(board) in board.legal_moves()


def test_a_run_with_sparring_partners_logs_the_network_score_against_them(tmp_path):
    cfg = tiny(tmp_path / "s", games_per_iteration=4)
    cfg.alphazero = dataclasses.replace(cfg.alphazero, selfplay=dataclasses.replace(
        cfg.alphazero.selfplay, sparring=("minimax:1",), sparring_share=1.0))  # fmt: skip
    last = train(cfg)["last_iteration"]
    assert last["sparring_games"] == 4 and 0.0 <= last["sparring_score"] <= 1.0
    assert json.loads((tmp_path / "s" / "config.json").read_text())["alphazero"]["selfplay"]["sparring"] == [
        "minimax:1"
    ]


def test_a_sparring_partner_that_is_no_agent_stops_the_run_before_it_plays(tmp_path, capsys):
    cfg = tiny(tmp_path / "bad")
    cfg.alphazero = dataclasses.replace(cfg.alphazero, selfplay=dataclasses.replace(
        cfg.alphazero.selfplay, sparring=("minimax:x",), sparring_share=0.5))  # fmt: skip
    with pytest.raises(ValueError, match="minimax:x"):
        train(cfg)
    assert not (tmp_path / "bad" / "train.csv").exists()


def test_ppo_tiny_run_writes_a_checkpoint_that_loads_as_an_agent(tmp_path):
    result = train(tiny(tmp_path / "ppo", algo="ppo"))
    assert result["step"] == 1
    agent = load_agent(tmp_path / "ppo" / "best.pt", "american", seed=0)
    assert type(agent).__name__ == "PolicyAgent"
    _plays(agent)
    with pytest.raises(CheckpointError, match="does not search"):
        load_agent(tmp_path / "ppo" / "best.pt", "american", dtype="bfloat16")


def test_evaluation_writes_the_curve_and_table(tmp_path, capsys):
    cfg = tiny(tmp_path / "ev", eval_opponents=("random",))
    cfg.eval_games = 2
    cfg.final_games = 2
    result = train(cfg)
    assert [r["opponent"] for r in result["final"]] == ["random"]
    assert result["final"][0]["games"] == 2
    rows = (tmp_path / "ev" / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("train_minutes,step,opponent,games,wins,draws,losses,score,ci_low,ci_high")
    assert (tmp_path / "ev" / "learning_curve.png").stat().st_size > 1000
    assert "random" in capsys.readouterr().out


def test_each_curve_point_keeps_the_agent_it_measured(tmp_path):
    cfg = tiny(tmp_path / "kc", eval_opponents=("random",))
    cfg.eval_games = 2
    train(cfg)
    steps = [int(line.split(",")[1]) for line in (tmp_path / "kc" / "eval.csv").read_text().splitlines()[1:]]
    kept = sorted(p.name for p in (tmp_path / "kc" / "curve").iterdir())
    assert steps == [0, 1] and kept == [run_module.curve_checkpoint_name(s) for s in steps]
    first = torch.load(tmp_path / "kc" / "curve" / kept[0], weights_only=False)
    last = torch.load(tmp_path / "kc" / "curve" / kept[-1], weights_only=False)
    best = torch.load(tmp_path / "kc" / "best.pt", weights_only=False)
    assert first["meta"]["step"] == 0 and last["meta"]["step"] == 1
    weights = [c["weights"] for c in (first, last, best)]
    assert any(not torch.equal(weights[0][k], weights[1][k]) for k in weights[0])  # the first is the untrained agent
    assert all(torch.equal(weights[1][k], weights[2][k]) for k in weights[1])  # the last is the final best.pt
    cfg = tiny(tmp_path / "off", eval_opponents=("random",), keep_curve_checkpoints=False)
    cfg.eval_games = 2
    train(cfg)
    assert not (tmp_path / "off" / "curve").exists()


def test_the_curve_and_the_table_use_one_interval(tmp_path):
    from train.arena import score_interval

    cfg = tiny(tmp_path / "ci", eval_opponents=("random",))
    cfg.eval_games = 4
    cfg.final_games = 4
    result = train(cfg)
    curve = result["curve"][-1]
    row = (tmp_path / "ci" / "eval.csv").read_text().splitlines()[-1].split(",")
    lo, hi = score_interval(curve["wins"], curve["draws"], curve["losses"])
    assert float(row[8]) == pytest.approx(lo, abs=1e-4) and float(row[9]) == pytest.approx(hi, abs=1e-4)
    assert curve["score_ci"] == pytest.approx([lo, hi])


def test_the_curve_draws_the_targets_of_its_variant_and_opponents(tmp_path):
    american = Run(tiny(tmp_path / "am", eval_opponents=("minimax:4", "minimax:6")))
    assert american.curve_target_lines() == [("80% vs minimax:4", 0.8), ("50% vs minimax:6", 0.5)]
    russian = Run(tiny(tmp_path / "ru", variant="russian", eval_opponents=("minimax:2", "minimax:4")))
    assert russian.curve_target_lines() == [("75% vs minimax:2", 0.75)]
    assert Run(tiny(tmp_path / "po", variant="pool", eval_opponents=("minimax:2",))).curve_target_lines() == []


def test_resumption_continues_from_the_step_it_stopped_at(tmp_path):
    cfg = tiny(tmp_path / "r")
    train(cfg)
    first = Run(cfg)
    assert first.resumed and first.iteration == 1
    steps, logged, buffered = first.learner.train_steps, first.learner.log.count, first.learner.buffer.size
    assert steps > 0 and buffered > 0 and logged == 2
    first.close()
    train(tiny(tmp_path / "r", minutes=first.train_seconds / 60 + 1e-6))
    second = Run(cfg)
    assert second.iteration == 2
    assert second.learner.train_steps > steps and second.learner.log.count == logged + 2
    second.close()
    rows = (tmp_path / "r" / "train.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["1", "2"]


def test_resuming_with_changed_settings_says_so_and_keeps_the_old_configuration(tmp_path, capsys):
    first = tiny(tmp_path / "c")
    train(first)
    old = json.loads((tmp_path / "c" / "config.json").read_text())
    capsys.readouterr()
    changed = tiny(tmp_path / "c", minutes=1e-5)
    changed.alphazero.mcts = MCTSConfig(simulations=4)
    reopened = Run(changed)  # opening a folder to look at it changes nothing
    reopened.close()
    assert json.loads((tmp_path / "c" / "config.json").read_text()) == old
    train(changed)
    err = capsys.readouterr().err
    assert "settings changed after iteration 1" in err, err
    assert "alphazero.mcts.simulations: 3 -> 4" in err and "minutes: 1e-06 -> 1e-05" in err, err
    assert json.loads((tmp_path / "c" / "config.json").read_text()) == json.loads(json.dumps(changed.to_dict()))
    assert json.loads((tmp_path / "c" / "config-to-iteration-1.json").read_text()) == old
    again = tiny(tmp_path / "c", minutes=2e-5)
    again.alphazero.mcts = MCTSConfig(simulations=4)
    train(again)  # only the budget changed this time, and no iteration ran since the last copy
    err = capsys.readouterr().err
    assert "minutes: 1e-05 -> 2e-05" in err and "alphazero.mcts" not in err, err
    kept = json.loads((tmp_path / "c" / "config-to-iteration-1.2.json").read_text())
    assert kept["minutes"] == 1e-5 and kept["alphazero"]["mcts"]["simulations"] == 4
    assert json.loads((tmp_path / "c" / "config-to-iteration-1.json").read_text()) == old  # not overwritten


def test_changed_settings_names_each_nested_setting():
    before = {"run_dir": "a", "minutes": 1, "alphazero": {"mcts": {"simulations": 3, "c_puct": 1.5}}}
    after = {"run_dir": "b", "minutes": 1, "alphazero": {"mcts": {"simulations": 4, "c_puct": 1.5}}, "new": 2}
    assert run_module.changed_settings(before, after) == {"alphazero.mcts.simulations": (3, 4), "new": (None, 2)}
    assert run_module.changed_settings(before, before) == {}


def test_interrupted_selfplay_keeps_its_finished_games(tmp_path, monkeypatch):
    real = az_selfplay.play_selfplay_games

    def interrupted(*args, on_game=None, **kw):
        real(*args, on_game=on_game, **kw)  # every game finishes and is handed over
        raise KeyboardInterrupt

    monkeypatch.setattr(az_selfplay, "play_selfplay_games", interrupted)
    cfg = tiny(tmp_path / "i")
    with pytest.raises(KeyboardInterrupt):
        train(cfg)
    monkeypatch.setattr(az_selfplay, "play_selfplay_games", real)
    assert not (tmp_path / "i" / "train_state.pt").exists()
    fresh = Run(cfg)  # no state yet: the logged games are reused as the first iteration's
    assert fresh.learner.log.count == 2 and fresh.learner.buffer.size > 0
    fresh.close()
    result = train(cfg)  # trains on the logged games without playing them again
    assert "games" not in result["last_iteration"] and result["last_iteration"]["games_logged"] == 2


def test_a_kill_during_self_play_loses_no_finished_game_and_no_log_row(tmp_path, monkeypatch):
    cfg = tiny(tmp_path / "k")
    train(cfg)  # iteration 1 saved
    real = az_selfplay.play_selfplay_games

    def killed(*args, on_game=None, **kw):
        games = real(*args, on_game=None, **kw)
        on_game(games[0])  # one game of iteration 2 is finished and logged...
        raise SystemExit("SIGKILL")  # ...then the process dies (no handler runs for a real kill)

    monkeypatch.setattr(az_selfplay, "play_selfplay_games", killed)
    with pytest.raises(SystemExit):
        train(tiny(tmp_path / "k", minutes=1.0))
    monkeypatch.setattr(az_selfplay, "play_selfplay_games", real)
    # the kill also left a torn record at the end of the log and a stale temporary file
    log = sorted((tmp_path / "k" / "replay").glob("games-*.bin"))[-1]
    with open(log, "ab") as fh:
        fh.write(b"CKGR\x10\x00\x00\x00half a record")
    (tmp_path / "k" / f"{TEMP_PREFIX}stale.pt").write_bytes(b"x" * 1000)
    resumed = Run(tiny(tmp_path / "k", minutes=1.0))
    assert resumed.iteration == 1
    assert resumed.learner.log.count == 3  # 2 of iteration 1, 1 finished before the kill; the torn one dropped
    assert not list((tmp_path / "k").glob(f"{TEMP_PREFIX}*"))
    resumed.close()
    result = train(tiny(tmp_path / "k", minutes=2e-6 + resumed.train_seconds / 60))
    assert result["last_iteration"]["games"] == 1  # only the missing game is played
    rows = (tmp_path / "k" / "train.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["1", "2"]


def test_log_rows_of_an_iteration_lost_to_a_kill_are_dropped_on_resume(tmp_path):
    cfg = tiny(tmp_path / "d")
    train(cfg)
    csv_path = tmp_path / "d" / "train.csv"
    lines = csv_path.read_text().splitlines()
    # a kill after the row of iteration 2 was written but before its state was saved
    csv_path.write_text("\n".join([*lines, "2" + lines[1][1:]]) + "\n")
    Run(cfg).close()
    assert csv_path.read_text().splitlines() == lines


def test_a_curve_agent_of_an_iteration_lost_to_a_kill_is_dropped_on_resume(tmp_path):
    cfg = tiny(tmp_path / "k", eval_opponents=("random",))
    cfg.eval_games = 2
    train(cfg)
    folder = tmp_path / "k" / "curve"
    kept = sorted(p.name for p in folder.iterdir())
    # a kill after an iteration kept the agent of its curve point but before its state was saved
    (folder / run_module.curve_checkpoint_name(99)).write_bytes((folder / kept[-1]).read_bytes())
    Run(cfg).close()
    assert sorted(p.name for p in folder.iterdir()) == kept


def test_ppo_resumption_restores_counters(tmp_path):
    cfg = tiny(tmp_path / "p", algo="ppo")
    train(cfg)
    t = Run(cfg)
    assert t.learner.iteration == 1 and len(t.learner.pool) == 1
    t.close()


def test_unknown_algo_and_variant_are_rejected(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        selfplay.main(["--algo", "sarsa", "--run-dir", str(tmp_path / "x")])
    assert exc.value.code != 0
    assert selfplay.main(["--variant", "chess", "--run-dir", str(tmp_path / "y")]) == 2
    assert "chess" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()


def test_resuming_with_other_settings_overwrites_nothing(tmp_path):
    cfg = tiny(tmp_path / "m")
    train(cfg)
    before = {p: (tmp_path / "m" / p).read_bytes() for p in ("config.json", "train_state.pt", "best.pt")}
    with pytest.raises(CheckpointError, match="algo"):
        Run(tiny(tmp_path / "m", algo="ppo"))
    bigger = tiny(tmp_path / "m")
    bigger.net = NetConfig(channels=16, blocks=1, value_hidden=8)
    with pytest.raises(CheckpointError, match="net"):
        Run(bigger)
    assert selfplay.main(["--run-dir", str(tmp_path / "m"), "--algo", "ppo", "--minutes", "0.01"]) == 2
    after = {p: (tmp_path / "m" / p).read_bytes() for p in before}
    assert after == before


def test_damaged_state_files_refuse_to_resume_and_stay_as_they_were(tmp_path, capsys):
    cfg = tiny(tmp_path / "s")
    train(cfg)
    state_path = tmp_path / "s" / "train_state.pt"
    good = state_path.read_bytes()
    state = torch.load(state_path, weights_only=True)

    def rejected(data: bytes, match: str) -> None:
        state_path.write_bytes(data)
        with pytest.raises(CheckpointError, match=match):
            Run(cfg)
        assert selfplay.main(["--run-dir", str(tmp_path / "s"), "--net.channels", "8", "--net.blocks", "1",
                              "--net.value-hidden", "8"]) == 2  # fmt: skip
        assert state_path.read_bytes() == data

    rejected(b"garbage", "corrupt")
    missing = dict(state)
    del missing["history"]
    rejected(_torch_bytes(missing), "lacks history")
    tampered = dict(state)
    tampered["learner"] = dict(state["learner"])
    weights = dict(tampered["learner"]["weights"])
    key = next(iter(weights))
    weights[key] = weights[key] + 1.0
    tampered["learner"]["weights"] = weights
    rejected(_torch_bytes(tampered), "damaged")
    # a pickle that would run code when loaded is refused, and the code does not run
    marker = tmp_path / "ran"
    rejected(_torch_bytes({**state, "evil": _RunsCode(str(marker))}), "refusing to load")
    assert not marker.exists()
    state_path.write_bytes(good)
    Run(cfg).close()


def test_a_broken_config_json_is_named(tmp_path):
    cfg = tiny(tmp_path / "j")
    train(cfg)
    (tmp_path / "j" / "config.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="config.json"):
        Run(cfg)


class _RunsCode:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _torch_bytes(obj) -> bytes:
    import io

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def test_checkpoints_with_flipped_bytes_or_non_finite_weights_are_refused(tmp_path):
    train(tiny(tmp_path / "c"))
    best = tmp_path / "c" / "best.pt"
    data = torch.load(best, weights_only=True)
    key = next(k for k, v in data["weights"].items() if v.is_floating_point())
    flipped = {**data, "weights": {**data["weights"], key: data["weights"][key].clone()}}
    flipped["weights"][key].view(-1)[0] += 0.5
    (tmp_path / "flipped.pt").write_bytes(_torch_bytes(flipped))
    with pytest.raises(CheckpointError, match="damaged"):
        load_agent(tmp_path / "flipped.pt", "american")
    from agents.checkpoint import tensor_digest

    nan = {**data, "weights": {**data["weights"], key: torch.full_like(data["weights"][key], float("nan"))}}
    nan["digest"] = tensor_digest(nan["weights"])
    (tmp_path / "nan.pt").write_bytes(_torch_bytes(nan))
    with pytest.raises(CheckpointError, match=r"nan.pt.*non-finite"):
        load_agent(tmp_path / "nan.pt", "american")


def test_corrupt_or_mismatched_checkpoints_get_clear_errors(tmp_path):
    train(tiny(tmp_path / "c"))
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
    assert json.loads((tmp_path / "c" / "config.json").read_text())["algo"] == "alphazero"


def test_checkpoint_specs_take_search_options(tmp_path):
    from agents import AgentSpecError, make_agent

    train(tiny(tmp_path / "a"))
    path = str(tmp_path / "a" / "best.pt")
    agent = make_agent(path, "american", seed=3)
    assert agent.mcts_config.simulations == 3 and agent.time == 0
    _plays(agent)
    tuned = make_agent(f"{path}:sims=5,time=0.25", "american", seed=3)
    assert tuned.mcts_config.simulations == 5 and tuned.time == 0.25
    assert tuned.name == f"{path}:sims=5,time=0.25"
    _plays(tuned)
    gumbel = make_agent(f"{path}:root=gumbel", "american", seed=3)
    assert gumbel.mcts_config.root == "gumbel"
    _plays(gumbel)
    explorer = make_agent(f"{path}:c_puct=3.5,fpu=0", "american", seed=3)
    assert (explorer.mcts_config.c_puct, explorer.mcts_config.fpu_reduction) == (3.5, 0.0)
    assert explorer.mcts_config.simulations == agent.mcts_config.simulations  # the rest as trained
    assert (agent.mcts_config.c_puct, agent.mcts_config.fpu_reduction) == (AlphaZeroConfig().eval_c_puct, 0.25)
    _plays(explorer)
    assert agent.dtype == "float32"  # as trained: evaluation searches in float32 unless asked
    half = make_agent(f"{path}:sims=5,dtype=bfloat16", "american", seed=3)
    assert half.dtype == "bfloat16" and all(p.dtype == torch.float32 for p in half.net.parameters())
    _plays(half)
    keeping = make_agent(f"{path}:sims=5,reuse=1", "american", seed=3)
    assert keeping.mcts_config.reuse_tree and not make_agent(f"{path}:reuse=no", "american").mcts_config.reuse_tree
    _plays(keeping)
    mixing = make_agent(f"{path}:sims=5,mix=0.4", "american", seed=3)
    assert mixing.mcts_config.material_mix == 0.4 and agent.mcts_config.material_mix == 0.0  # as trained
    _plays(mixing)
    backing = make_agent(f"{path}:sims=5,minimax=0.5", "american", seed=3)
    assert backing.mcts_config.minimax_weight == 0.5 and agent.mcts_config.minimax_weight == 0.0  # as trained
    _plays(backing)
    sharpened = make_agent(f"{path}:sims=5,ptemp=0.5", "american", seed=3)
    assert sharpened.mcts_config.prior_temperature == 0.5 and agent.mcts_config.prior_temperature == 1.0
    _plays(sharpened)
    bad_specs = (f"{path}:sims=1", f"{path}:speed=3", f"{path}:time=-1", f"{path}:sims=x", f"{path}:root=alphabeta",
                 f"{path}:dtype=float16", f"{path}:c_puct=0", f"{path}:c_puct=-1", f"{path}:fpu=x",
                 f"{path}:reuse=maybe", f"{path}:root=gumbel,reuse=1", f"{path}:mix=1.5", f"{path}:mix=x",
                 f"{path}:minimax=-0.5", f"{path}:minimax=2", f"{path}:minimax=x", f"{path}:ptemp=0",
                 f"{path}:ptemp=-1", f"{path}:ptemp=x")  # fmt: skip
    for bad in bad_specs:
        with pytest.raises(AgentSpecError):
            make_agent(bad, "american")
    # an unknown option is answered with the usage line registered for checkpoints, every option in it
    with pytest.raises(AgentSpecError) as refused:
        make_agent(f"{path}:speed=3", "american")
    options = (
        "sims=N",
        "time=",
        "root=puct|gumbel",
        "c_puct=",
        "fpu=",
        "reuse=1|0",
        "mix=W",
        "minimax=M",
        "ptemp=T",
        "dtype=",
    )
    for option in options:
        assert option in str(refused.value)


def test_checkpoints_search_with_the_evaluation_exploration_constant(tmp_path):
    """Self-play explores with mcts.c_puct; the agent a checkpoint plays (and the curve measures) with eval_c_puct."""
    cfg = tiny(tmp_path / "e")
    cfg.alphazero = dataclasses.replace(cfg.alphazero, mcts=MCTSConfig(simulations=3, c_puct=2.0), eval_c_puct=0.7)
    train(cfg)
    for name in ("best.pt", "latest.pt"):
        agent = load_agent(tmp_path / "e" / name, "american")
        assert agent.mcts_config.c_puct == 0.7 and agent.mcts_config.simulations == 3
    assert json.loads((tmp_path / "e" / "config.json").read_text())["alphazero"]["mcts"]["c_puct"] == 2.0
    with pytest.raises(ValueError, match="eval_c_puct"):
        AlphaZeroConfig(eval_c_puct=0).validate()


def test_bytes_written_per_iteration_do_not_grow_with_the_buffer(tmp_path):
    """The state holds no replay positions: it stays the same size as the buffer fills."""
    sizes = []
    minutes = 1e-6
    for _ in range(3):
        cfg = tiny(tmp_path / "b", minutes=minutes, games_per_iteration=4)
        r = Run(cfg)
        minutes = r.train_seconds / 60 + 1e-6
        r.close()
        train(tiny(tmp_path / "b", minutes=minutes, games_per_iteration=4))
        sizes.append(os.path.getsize(tmp_path / "b" / "train_state.pt"))
    assert max(sizes) - min(sizes) < 4096, sizes


def test_selfplay_worker_is_a_pure_function_of_weights_config_and_seed():
    args = (None, TINY_NET, "american", MCTSConfig(simulations=3), SelfPlayConfig(parallel_games=2, max_moves=8))
    a = az_selfplay.play_selfplay_games(az_selfplay.SelfPlayJob(*args, seed=5, num_games=2))
    b = az_selfplay.play_selfplay_games(az_selfplay.SelfPlayJob(*args, seed=5, num_games=2))
    assert [g.moves for g in a] == [g.moves for g in b]
    assert all(np.array_equal(x.policy_probs, y.policy_probs) for x, y in zip(a, b))
    for g in a:
        assert g.policy_actions.shape[1] == az_selfplay.POLICY_SLOTS
        ok = g.policy_actions >= 0
        assert np.allclose(np.where(ok, g.policy_probs, 0).astype(np.float32).sum(1), 1.0, atol=1e-2)


def test_value_targets_are_discounted_per_move_and_scaled_when_adjudicated():
    colours = np.array([0, 1, 0], dtype=np.int8)
    moves = np.array([0, 1, 4])
    won = az_selfplay.value_targets(colours, moves, end=5, winner=1, scale=1.0, discount=0.9)
    np.testing.assert_allclose(won, [-(0.9**5), 0.9**4, -0.9], rtol=1e-6)
    held = az_selfplay.value_targets(colours, moves, end=5, winner=0, scale=0.5, discount=1.0)
    np.testing.assert_allclose(held, [0.5, -0.5, 0.5])
    assert not az_selfplay.value_targets(colours, moves, end=5, winner=-1, scale=1.0, discount=0.9).any()


def test_adjudication_counts_a_king_as_king_material():
    # White: two kings (2k); Black: four men (4). Ahead by two or more wins, else a draw.
    board = Board("international", fen="W:WK46,K47:B1,2,3,4")
    assert az_selfplay.adjudicate(board, margin=2.0) == -1  # 3 against 4 with kings at 1.5
    assert az_selfplay.adjudicate(board, margin=2.0, king_material=3.0) == 0  # 6 against 4
    assert az_selfplay.adjudicate(board, margin=0.0, king_material=3.0) == -1  # margin 0: never adjudicated
    with pytest.raises(ValueError, match="king_material"):
        SelfPlayConfig(king_material=0.0)


def test_selfplay_records_carry_their_value_targets():
    mcts = MCTSConfig(simulations=3, discount=0.95)
    play = SelfPlayConfig(parallel_games=2, max_moves=6, adjudicate_margin=0.5, adjudicated_value=0.5)
    for g in az_selfplay.play_selfplay_games(az_selfplay.SelfPlayJob(None, TINY_NET, "american", mcts, play, 1, 2)):
        assert g.value_targets.shape == g.colours.shape and g.value_targets.dtype == np.float32
        if g.winner < 0:
            assert not g.value_targets.any()
        else:
            # a game stopped at 6 moves is adjudicated: at most 0.5, discounted
            assert g.adjudicated and 0 < np.abs(g.value_targets).max() <= 0.5


def test_run_loop_never_branches_on_the_algorithm():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(run_module))
    names = {"alphazero", "ppo"}
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in names]
    compares = [n for n in ast.walk(tree) if isinstance(n, ast.Compare)]
    assert not [c for c in compares if "algo" in ast.unparse(c)]


def test_progress_is_plain_lines_when_output_is_not_a_terminal(capsys):
    from train.progress import progress_bar

    with progress_bar(3, "self-play", True, "game") as bar:
        for _ in range(3):
            bar.update(1)
    err = capsys.readouterr().err
    assert "\r" not in err and err.strip().splitlines() == ["self-play: 3/3 games (0 s) done"]
