"""The learning benchmark's command line with a tiny budget, and its config overrides."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("tyro")

from train import benchmark, evaluate  # noqa: E402
from train.config import TrainConfig  # noqa: E402


def test_overrides_reach_nested_and_frozen_fields():
    cfg = benchmark.apply_overrides(
        TrainConfig(),
        ["alphazero.mcts.root=gumbel", "alphazero.mcts.simulations=16", "net.channels=64", "eval_opponents=random,minimax:1",
         "alphazero.selfplay.full_search_share=0.5", "progress=false", "alphazero.selfplay.focus_plies=30,80"],
    )  # fmt: skip
    assert cfg.alphazero.mcts.root == "gumbel" and cfg.alphazero.mcts.simulations == 16
    assert cfg.alphazero.selfplay.focus_plies == (30, 80)
    assert cfg.net.channels == 64 and cfg.eval_opponents == ("random", "minimax:1")
    assert cfg.alphazero.selfplay.full_search_share == 0.5 and cfg.progress is False
    bad_plies = ("alphazero.selfplay.focus_plies=30", "alphazero.selfplay.focus_plies=80,30",
                 "alphazero.selfplay.focus_plies=a,b")  # fmt: skip
    for bad in ("alphazero.nope=1", "net.channels=x", "progress=maybe", "minutes", *bad_plies):
        with pytest.raises(ValueError):
            benchmark.apply_overrides(TrainConfig(), [bad])


def test_tiny_benchmark_writes_its_table(tmp_path, capsys):
    tiny = ["net.channels=8", "net.blocks=1", "net.value_hidden=8", "alphazero.mcts.simulations=3",
            "alphazero.eval_simulations=3", "alphazero.games_per_iteration=2", "alphazero.workers=1",
            "alphazero.selfplay.parallel_games=2", "alphazero.selfplay.max_moves=10", "threads=1"]  # fmt: skip
    argv = ["--variants", "american", "--minutes", "0.0001", "--games", "2", "--simulations", "3",
            "--opponents", "random", "--curve-games", "2", "--curve-opponents", "random", "--run-dir", str(tmp_path),
            "--no-progress", "--tag", "t"] + [x for o in tiny for x in ("--set", o)]  # fmt: skip
    assert benchmark.main(argv) == 0
    doc = json.loads((tmp_path / "benchmark-t.json").read_text())
    assert doc["results"][0]["opponent"] == "random" and doc["results"][0]["games"] == 2
    assert doc["runs"][0]["games"] == 2 and doc["runs"][0]["gradient_steps"] >= 1
    table = (tmp_path / "benchmark-t.md").read_text()
    assert "| american | alphazero |" in table and "pieces behind to the end: from ply (median) |" in table
    assert table.splitlines()[2].count("|") == table.splitlines()[0].count("|")  # every row has the new column
    # its games pair with a train.evaluate match on the same openings (the benchmark's seed plus one) and cap
    assert doc["results"][0]["openings_seed"] == 1 and doc["results"][0]["max_plies"] == 200
    spec = f"{tmp_path / 'american-t' / 'best.pt'}:sims=3"
    out = tmp_path / "paired.json"
    argv = ["--a", spec, "--b", "random", "--games", "2", "--seed", "1", "--max-plies", "200", "--workers", "1"]
    assert (
        evaluate.main(argv + ["--quiet", "--json", str(out), "--paired-with", str(tmp_path / "benchmark-t.json")]) == 0
    )
    assert json.loads(out.read_text())["paired_with"]["games"] == 2
