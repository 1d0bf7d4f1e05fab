"""``benchmarks/weight_norms.py`` measures the growth of a checkpoint's convolution weights."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from agents.checkpoint import save_agent  # noqa: E402
from agents.networks import NetConfig, PolicyValueNet  # noqa: E402
from checkers_env.core import get_rules  # noqa: E402
from tests.scripts import load_script  # noqa: E402


def _script():
    return load_script("benchmarks/weight_norms.py")


def test_a_fresh_network_has_not_grown_and_a_doubled_trunk_has(tmp_path, capsys):
    rules = get_rules("american")
    torch.manual_seed(0)
    net = PolicyValueNet(rules.board_size, NetConfig(channels=8, blocks=1, value_hidden=8))
    save_agent(tmp_path / "fresh.pt", "alphazero", rules, net)
    with torch.no_grad():
        for name, weight in net.named_parameters():
            if name.startswith(("stem.", "trunk.")) and weight.dim() == 4:
                weight.mul_(2.0)
    save_agent(tmp_path / "grown.pt", "alphazero", rules, net)
    assert _script().main([str(tmp_path / "fresh.pt"), str(tmp_path / "grown.pt")]) == 0
    means = [line for line in capsys.readouterr().out.splitlines() if "mean growth" in line]
    assert means == ["  trunk convolutions: mean growth x1.00", "  trunk convolutions: mean growth x2.00"]
