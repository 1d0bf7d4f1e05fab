"""Measuring a learning curve again from the agents a run kept at its points (``python -m train.curve``)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("tyro")

from tests.train.test_run import tiny  # noqa: E402
from train import curve  # noqa: E402
from train.arena import paired_difference  # noqa: E402
from train.run import train  # noqa: E402


@pytest.fixture(scope="module")
def kept_run(tmp_path_factory):
    """A one-iteration run that kept two curve agents: the untrained one and the trained one."""
    run_dir = tmp_path_factory.mktemp("curve") / "run"
    cfg = tiny(run_dir, eval_opponents=("random",))
    cfg.eval_games = 2
    train(cfg)
    return run_dir


def test_the_points_are_the_kept_agents_in_training_order(kept_run):
    points = curve.curve_checkpoints(str(kept_run))
    assert [p.step for p in points] == [0, 1]
    assert {p.variant for p in points} == {"american"}
    assert points[0].train_minutes <= points[1].train_minutes


def test_every_point_plays_the_same_openings_and_pairs_with_the_one_before(kept_run, capsys):
    status = curve.main([str(kept_run), "--opponents", "random", "--games", "4", "--options", "sims=3", "--quiet"])
    assert status == 0
    doc = json.loads((kept_run / "curve" / "remeasured.json").read_text())
    assert (kept_run / "curve" / "remeasured.png").stat().st_size > 1000
    first, last = doc["points"]
    assert [first["step"], last["step"]] == [0, 1] and first["games"] == last["games"] == 4
    assert first["minus_previous"] is None
    d = paired_difference(first["game_scores"], last["game_scores"])
    assert last["minus_previous"]["mean"] == pytest.approx(d.mean)
    assert last["score"] == pytest.approx(sum(last["game_scores"]) / 4)
    assert last["agent"].endswith("step-0000001.pt:sims=3")
    out = capsys.readouterr().out
    assert "| 0.0 | 0 | random |" in out and "minus the point before" in out


def test_a_point_measured_again_gives_the_same_games(kept_run, tmp_path):
    points = curve.curve_checkpoints(str(kept_run))[1:]
    a, _ = curve.remeasure(points, ["random"], 4, seed=3, options="sims=3", progress=False)
    b, _ = curve.remeasure(points, ["random"], 4, seed=3, options="sims=3", progress=False)
    assert a[0]["game_scores"] == b[0]["game_scores"]


def test_pairings_played_in_worker_processes_give_the_same_games(kept_run):
    import torch

    points = curve.curve_checkpoints(str(kept_run))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as main() and each worker run it
    try:
        alone, _ = curve.remeasure(points, ["random", "minimax:1"], 4, seed=5, options="sims=3", progress=False)
    finally:
        torch.set_num_threads(threads)
    pooled, interrupted = curve.remeasure(
        points, ["random", "minimax:1"], 4, seed=5, options="sims=3", progress=False, workers=2
    )
    assert not interrupted
    assert [(r["step"], r["opponent"], r["game_scores"]) for r in pooled] == [
        (r["step"], r["opponent"], r["game_scores"]) for r in alone
    ]
    assert pooled[2]["minus_previous"] == alone[2]["minus_previous"]  # step 1 paired with step 0, random
    with pytest.raises(ValueError, match="workers"):
        curve.remeasure(points, ["random"], 4, seed=5, workers=0)


def test_a_pairing_that_fails_in_a_worker_stops_the_measure_with_its_error(kept_run):
    from agents import AgentSpecError

    points = curve.curve_checkpoints(str(kept_run))
    with pytest.raises(AgentSpecError, match="nobody"):
        curve.remeasure(points, ["random", "nobody:1"], 2, seed=5, options="sims=3", progress=False, workers=2)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--games", "3"], "even number"),
        (["--options", "sims=x"], "sims"),
        (["--opponents", "nobody:1"], "nobody"),
        (["--min-minutes", "1e9"], "no curve point"),
        (["--workers", "0"], "--workers"),
    ],
)
def test_bad_input_is_refused_before_any_game(kept_run, capsys, extra, message):
    assert curve.main([str(kept_run), "--quiet", *extra]) == 2
    assert message in capsys.readouterr().err


def test_a_folder_without_kept_agents_is_refused(tmp_path, capsys):
    assert curve.main([str(tmp_path), "--quiet"]) == 2
    assert "no curve/step-*.pt" in capsys.readouterr().err
