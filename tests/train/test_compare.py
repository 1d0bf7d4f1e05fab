"""Settings compared side by side: paired differences, checked settings, and a tiny comparison end to end."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.scripts import ROOT
from train.arena import losses_turn, losses_turn_text, paired_difference


def test_paired_difference_is_the_mean_game_by_game_difference():
    d = paired_difference([0, 0.5, 1, 0], [1, 0.5, 1, 0.5])
    assert d.games == 4 and d.mean == pytest.approx(0.375) and (d.better, d.worse) == (2, 0)
    half = 1.959963984540054 * 0.478713553878169 / 2  # sample sd of (1, 0, 0, 0.5) is 0.4787
    assert d.ci == pytest.approx((0.375 - half, 0.375 + half))
    same = paired_difference([1, 0, 0.5], [1, 0, 0.5])
    assert same.mean == 0 and same.ci == (0, 0) and same.better == same.worse == 0
    assert math.isinf(paired_difference([0], [1]).ci[1])  # one game: no interval
    with pytest.raises(ValueError, match="same games"):
        paired_difference([0, 1], [1])


pytest.importorskip("torch")
pytest.importorskip("tyro")

from train import compare  # noqa: E402


def test_bad_settings_are_refused_before_anything_trains(tmp_path, capsys):
    base = ["--run-dir", str(tmp_path / "c"), "--no-progress"]
    for settings, message in (
        (["--setting", "a", "--setting", "a"], "must differ"),
        (["--setting", "a", "--setting", "b", "alphazero.nope=1"], "no field"),
        (["--setting", "x=1"], "starts with its name"),
        (["--setting", "a", "alphazero.sample_reuse=0"], "sample_reuse"),
        (["--setting", "a", "--setting", "b", "threads=2"], "one core"),
        (["--setting", "a", "--set", "alphazero.workers=2"], "one core"),
    ):
        assert compare.main(settings + base) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "c").exists()  # nothing was started


TINY = ["net.channels=8", "net.blocks=1", "net.value_hidden=8", "alphazero.mcts.simulations=3",
        "alphazero.eval_simulations=3", "alphazero.games_per_iteration=2", "alphazero.selfplay.parallel_games=2",
        "alphazero.selfplay.max_moves=10"]  # fmt: skip


def test_two_settings_train_side_by_side_and_pair_up(tmp_path, capsys):
    argv = ["--variant", "american", "--minutes", "0.0001", "--games", "4", "--simulations", "3",
            "--opponents", "random", "--run-dir", str(tmp_path), "--no-progress",
            "--setting", "base", "--setting", "fast", "alphazero.learning_rate=0.01"]  # fmt: skip
    argv += [x for o in TINY for x in ("--set", o)]
    assert compare.main(argv) == 0
    doc = json.loads((tmp_path / "compare.json").read_text())
    assert doc["reference"] == "base" and doc["parallel"] >= 1
    base, fast = doc["rows"]
    assert base["minus_reference"] is None and base["overrides"] == []
    assert fast["overrides"] == ["alphazero.learning_rate=0.01"] and fast["games"] == 4
    d = fast["minus_reference"]
    assert d["better"] + d["worse"] <= 4 and d["ci"][0] <= d["mean"] <= d["ci"][1]
    for name in ("base", "fast"):  # each run kept to one core, with its own overrides
        cfg = json.loads((tmp_path / f"american-{name}" / "config.json").read_text())
        assert cfg["threads"] == 1 and cfg["alphazero"]["workers"] == 1 and cfg["net"]["channels"] == 8
        assert cfg["alphazero"]["learning_rate"] == (0.01 if name == "fast" else 0.002)
        assert len(json.loads((tmp_path / f"benchmark-{name}.json").read_text())["results"][0]["game_scores"]) == 4
    assert "| fast | alphazero.learning_rate=0.01 |" in capsys.readouterr().out
    for row in doc["rows"]:  # where the losses were decided, from the match's endings
        turn = row["losses_turn"]
        assert turn["losses"] == row["losses"] and 0 <= turn["games"] <= row["losses"]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:  # gone meanwhile
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def _runs_a_benchmark(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"train.benchmark" in fh.read()
    except OSError:  # no such process
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads child processes from /proc")
def test_sigterm_stops_the_comparison_and_the_runs_it_started(tmp_path):
    argv = [sys.executable, "-m", "train.compare", "--variant", "american", "--minutes", "30", "--games", "2",
            "--simulations", "3", "--opponents", "random", "--run-dir", str(tmp_path), "--no-progress",
            "--parallel", "2", "--setting", "a", "--setting", "b", "alphazero.learning_rate=0.01"]  # fmt: skip
    argv += [x for o in TINY for x in ("--set", o)]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(runs := _children(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert len(runs) == 2, "the two runs did not start"
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 130
        assert not [pid for pid in runs if _runs_a_benchmark(pid)]  # stopped with it, not orphaned
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in runs:  # a failure must not leave runs training for half an hour
            if _runs_a_benchmark(pid):
                os.kill(pid, signal.SIGKILL)


def test_the_table_says_from_which_ply_the_losses_were_lost():
    result = {"endings": {"losses": {"games": 5, "behind_for_good": {"games": 4, "median_from": 118.5}}}}
    turn = losses_turn(result)
    assert turn == {"losses": 5, "games": 4, "median_from": 118.5}
    assert losses_turn_text(turn) == "118.5 (4 of 5)"
    assert losses_turn({}) is None and losses_turn_text(None) == ""
    assert losses_turn_text({"losses": 0, "games": 0, "median_from": None}) == ""
