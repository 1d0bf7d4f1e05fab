"""The moving average of the trained weights (``alphazero.ema_decay``): the update rule, and what a run
puts forward with it (``best.pt``), keeps training (``latest.pt``) and resumes."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("tyro")

import torch  # noqa: E402

from agents.checkpoint import read_checkpoint  # noqa: E402
from agents.networks import NetConfig, PolicyValueNet  # noqa: E402
from tests.train.test_run import tiny  # noqa: E402
from train.alphazero.config import AlphaZeroConfig  # noqa: E402
from train.alphazero.learner import WeightAverage  # noqa: E402
from train.run import Run, train  # noqa: E402


def _net(fill: float) -> PolicyValueNet:
    net = PolicyValueNet(8, NetConfig(channels=4, blocks=1, value_hidden=4))
    with torch.no_grad():
        for p in net.parameters():
            p.fill_(fill)
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.fill_(fill)
                m.num_batches_tracked.fill_(int(10 * fill))
    return net


def test_the_first_updates_average_with_a_smaller_decay_then_with_the_decay():
    average = WeightAverage(_net(0.0), decay=0.9)
    average.update(_net(1.0))  # d = min(0.9, 1/10): 0.1 * 0 + 0.9 * 1
    w = average.weights()
    assert torch.allclose(w["stem.0.weight"], torch.full_like(w["stem.0.weight"], 0.9))
    assert torch.allclose(w["stem.1.running_mean"], torch.full_like(w["stem.1.running_mean"], 0.9))
    assert int(w["stem.1.num_batches_tracked"]) == 10  # counters are copied, not averaged
    average.update(_net(0.0))  # d = min(0.9, 2/11)
    expected = 0.9 * 2 / 11
    assert torch.allclose(average.weights()["stem.0.weight"], torch.full_like(w["stem.0.weight"], expected))
    for _ in range(200):
        average.update(_net(1.0))
    assert average.updates == 202
    d = 0.9  # (1 + n) / (10 + n) passes 0.9 at n = 80: the later updates use the decay itself
    before = average.weights()["value_fc.0.bias"].clone()
    average.update(_net(0.0))
    assert torch.allclose(average.weights()["value_fc.0.bias"], d * before)


def test_weights_and_saved_states_are_copies_that_later_updates_do_not_change():
    average = WeightAverage(_net(0.0), decay=0.5)
    taken, saved = average.weights(), average.state_dict()
    average.update(_net(1.0))
    assert float(taken["stem.0.weight"].abs().sum()) == 0.0
    assert float(saved["weights"]["stem.0.weight"].abs().sum()) == 0.0 and saved["updates"] == 0
    restored = WeightAverage(_net(0.5), decay=0.5)
    restored.load_state_dict(average.state_dict())
    assert restored.updates == 1
    assert all(torch.equal(restored.weights()[k], average.weights()[k]) for k in taken)


@pytest.mark.parametrize("decay", [0.0, 1.0, -0.1, 1.5])
def test_a_decay_outside_zero_to_one_is_refused(decay):
    with pytest.raises(ValueError, match="decay"):
        WeightAverage(_net(0.0), decay=decay)
    if decay != 0.0:  # 0 in the configuration means off
        with pytest.raises(ValueError, match="ema_decay"):
            AlphaZeroConfig(ema_decay=decay).validate()


def _ema_run(run_dir, minutes=1e-6):
    cfg = tiny(run_dir, minutes=minutes)
    cfg.alphazero.ema_decay = 0.99
    return cfg


def _weights_of(path):
    return read_checkpoint(path)["weights"]


def test_a_run_puts_the_average_forward_and_trains_on_with_the_network_as_trained(tmp_path):
    cfg = _ema_run(tmp_path / "e")
    train(cfg)
    run = Run(cfg)
    learner = run.learner
    assert learner.average is not None and learner.average.updates == learner.train_steps > 0
    best, latest = _weights_of(tmp_path / "e" / "best.pt"), _weights_of(tmp_path / "e" / "latest.pt")
    average, trained = learner.average.weights(), learner.weights()
    for key in average:
        assert torch.equal(best[key], average[key]), key
        assert torch.equal(latest[key], trained[key]), key
    assert any(not torch.equal(average[k], trained[k]) for k in average if average[k].is_floating_point())
    assert all(torch.equal(learner.best_weights[k], average[k]) for k in average)
    steps = learner.train_steps
    run.close()
    # resuming keeps counting the average's updates from where it stopped
    train(_ema_run(tmp_path / "e", minutes=run.train_seconds / 60 + 1e-6))
    again = Run(cfg)
    assert again.learner.train_steps > steps
    assert again.learner.average.updates == again.learner.train_steps
    again.close()


def test_a_run_resumed_with_averaging_newly_on_starts_the_average_from_the_trained_network(tmp_path):
    plain = tiny(tmp_path / "p")
    train(plain)
    run = Run(_ema_run(tmp_path / "p"))
    average, trained = run.learner.average.weights(), run.learner.weights()
    assert run.learner.average.updates == 0
    assert all(torch.equal(average[k], trained[k]) for k in average)
    run.close()


def test_without_averaging_the_best_network_is_the_network_as_trained(tmp_path):
    cfg = tiny(tmp_path / "n")
    train(cfg)
    best, latest = _weights_of(tmp_path / "n" / "best.pt"), _weights_of(tmp_path / "n" / "latest.pt")
    assert all(torch.equal(best[k], latest[k]) for k in best)
    run = Run(cfg)
    assert run.learner.average is None
    run.close()
