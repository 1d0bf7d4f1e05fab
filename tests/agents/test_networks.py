"""The policy-value network: shapes, the convolutional policy head's action layout, masking."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.networks import (  # noqa: E402
    MOVE_NUMBER_PLANE,
    NetConfig,
    PolicyValueNet,
    cpu_state,
    masked_log_softmax,
    masked_softmax,
    pick_device,
)
from checkers_env.core import Board  # noqa: E402
from checkers_env.encoding import encode_action, legal_action_sequences, num_actions  # noqa: E402
from checkers_env.game import random_observations  # noqa: E402
from checkers_env.observation import planes_of  # noqa: E402


@pytest.mark.parametrize("size", [8, 10])
def test_forward_shapes_and_value_range(size):
    torch.manual_seed(0)
    net = PolicyValueNet(size, NetConfig(channels=8, blocks=1, value_hidden=8)).eval()
    logits, value = net(torch.randn(5, 8, size, size))
    assert logits.shape == (5, num_actions(size))
    assert value.shape == (5,)
    assert bool(((value >= -1) & (value <= 1)).all())


def test_material_head_adds_a_prediction_and_leaves_forward_unchanged():
    torch.manual_seed(0)
    with_head = PolicyValueNet(8, NetConfig(channels=8, blocks=1, value_hidden=8, material_head=True)).eval()
    obs = torch.randn(5, 8, 8, 8)
    logits, value, material = with_head.forward_with_material(obs)
    plain_logits, plain_value = with_head(obs)
    assert torch.equal(logits, plain_logits) and torch.equal(value, plain_value)
    assert material.shape == (5,) and bool(((material >= -1) & (material <= 1)).all())
    without = PolicyValueNet(8, NetConfig(channels=8, blocks=1, value_hidden=8))
    assert set(with_head.state_dict()) - set(without.state_dict()) == {
        "material_fc.0.weight", "material_fc.0.bias", "material_fc.2.weight", "material_fc.2.bias"}  # fmt: skip
    with pytest.raises(ValueError, match="no material head"):
        without.forward_with_material(obs)
    with pytest.raises(ValueError, match="material_head"):
        NetConfig(material_head=1)


def test_masked_softmax_gives_illegal_actions_exactly_zero():
    torch.manual_seed(1)
    logits = torch.randn(4, 896) * 30  # large logits: illegal ones would dominate without the mask
    mask = torch.zeros(4, 896, dtype=torch.int8)
    mask[0, [3, 7, 100]] = 1
    mask[1, 895] = 1
    mask[2, :] = 1
    probs = masked_softmax(logits, mask)
    assert torch.all(probs[mask == 0] == 0)
    assert torch.allclose(probs[:3].sum(1), torch.ones(3))
    assert probs[1, 895] == 1
    # a row with no legal action: all zero, no nan
    assert torch.all(probs[3] == 0)
    assert not torch.isnan(masked_log_softmax(logits, mask)).any()
    torch.testing.assert_close(probs, masked_log_softmax(logits, mask).exp())  # the two agree


def test_masked_policy_of_a_real_position_covers_only_legal_legs():
    board = Board("american")
    obs = torch.from_numpy(planes_of(board))[None]
    legal = {seq[0] for seq in legal_action_sequences(board)}
    mask = torch.zeros(1, 896, dtype=torch.int8)
    mask[0, list(legal)] = 1
    net = PolicyValueNet(8, NetConfig(channels=8, blocks=1)).eval()
    with torch.no_grad():
        probs = masked_softmax(net(obs)[0], mask)[0]
    assert set(torch.nonzero(probs).flatten().tolist()) == legal


def test_policy_head_reads_each_action_at_its_start_square():
    """Action (sq, d, dist) depends on the planes only through the cell of sq when the trunk is empty
    and the head is 1x1: perturbing another cell leaves its logit unchanged."""
    net = PolicyValueNet(8, NetConfig(channels=8, blocks=0)).eval()
    net.stem = torch.nn.Identity()
    net.policy_conv = torch.nn.Identity()
    net.policy_out = torch.nn.Conv2d(8, 28, 1)
    x = torch.zeros(1, 8, 8, 8)
    y = x.clone()
    y[0, 0, 7, 0] = 1.0  # square index 28 (row 7, file 0) in the mover's frame
    with torch.no_grad():
        dx, _ = net(x)
        dy, _ = net(y)
    changed = torch.nonzero(dx[0] != dy[0]).flatten().tolist()
    assert changed and all(a // 28 == 28 for a in changed)
    assert encode_action(28, 1, 1, 8) in changed


@pytest.mark.parametrize("size", [8, 10])
def test_a_network_that_does_not_read_the_move_number_ignores_its_plane(size):
    torch.manual_seed(0)
    blind = PolicyValueNet(size, NetConfig(channels=8, blocks=1, value_hidden=8, reads_move_number=False)).eval()
    assert blind.stem[0].in_channels == 7
    obs = torch.rand(4, 8, size, size)
    later = obs.clone()
    later[:, MOVE_NUMBER_PLANE] = 1.0 - later[:, MOVE_NUMBER_PLANE]
    for a, b in zip(blind(obs), blind(later), strict=True):
        assert torch.equal(a, b)
    seeing = PolicyValueNet(size, NetConfig(channels=8, blocks=1, value_hidden=8)).eval()
    assert seeing.stem[0].in_channels == 8
    assert not torch.equal(seeing(obs)[1], seeing(later)[1])
    with pytest.raises(ValueError, match="reads_move_number"):
        NetConfig(reads_move_number=0)


def test_bad_sizes_and_devices_raise_value_error():
    with pytest.raises(ValueError, match="channels"):
        NetConfig(channels=0)
    with pytest.raises(ValueError, match="board_size"):
        PolicyValueNet(9)
    with pytest.raises(ValueError):
        pick_device("nonsense-device")
    assert pick_device("cpu").type == "cpu"
    assert np.isfinite(sum(p.sum().item() for p in PolicyValueNet(8).parameters()))


def test_inference_dtype_names_and_auto(monkeypatch):
    import agents.networks as networks

    assert networks.inference_dtype("float32") == torch.float32
    assert networks.inference_dtype("bfloat16") == torch.bfloat16
    with pytest.raises(ValueError, match="inference dtype"):
        networks.inference_dtype("float16")
    monkeypatch.setattr(networks, "_native_bfloat16", lambda: True)
    assert networks.inference_dtype("auto", "cpu") == torch.bfloat16
    assert networks.inference_dtype("auto", "cuda") == torch.float32  # auto only picks bfloat16 on a CPU
    monkeypatch.setattr(networks, "_native_bfloat16", lambda: False)
    assert networks.inference_dtype("auto", "cpu") == torch.float32


@pytest.mark.parametrize("size", [8, 10])
def test_a_bfloat16_evaluator_agrees_with_float32_and_leaves_the_network_alone(size):
    from agents.learned import make_evaluator

    torch.manual_seed(0)
    net = PolicyValueNet(size, NetConfig(channels=16, blocks=2, value_hidden=16)).eval()
    variant = "american" if size == 8 else "international"
    board = Board(variant)
    obs = np.repeat(planes_of(board)[None], 3, axis=0)
    obs[1:] += np.random.default_rng(0).random(obs[1:].shape, dtype=np.float32)  # other inputs, same shape
    masks = np.zeros((3, num_actions(size)), dtype=np.int8)
    masks[:, [seq[0] for seq in legal_action_sequences(board)]] = 1
    exact_priors, exact_values = make_evaluator(net, dtype="float32")(obs, masks)
    priors, values = make_evaluator(net, dtype="bfloat16")(obs, masks)
    assert priors.dtype == values.dtype == np.float32
    np.testing.assert_allclose(priors, exact_priors, atol=0.02)
    np.testing.assert_allclose(values, exact_values, atol=0.02)
    assert not priors[masks == 0].any() and np.allclose(priors.sum(1), 1.0, atol=1e-5)
    assert all(p.dtype == torch.float32 for p in net.parameters())  # a copy was converted, not the net


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_channels_last_evaluator_gives_what_a_channels_first_one_gives(dtype):
    """The layout of the batch and weights is a speed choice only (bfloat16 on the CPU takes channels
    last by default): the same network gives the same priors and values either way."""
    from agents.learned import make_evaluator

    torch.manual_seed(0)
    net = PolicyValueNet(10, NetConfig(channels=16, blocks=2, value_hidden=16)).eval()
    obs, masks = random_observations("international", 12, seed=3)
    first = make_evaluator(net, dtype=dtype, channels_last=False)(obs, masks)
    last = make_evaluator(net, dtype=dtype, channels_last=True)(obs, masks)
    for a, b in zip(first, last):
        np.testing.assert_allclose(a, b, atol=1e-2 if dtype == "bfloat16" else 1e-5)
    assert all(p.is_contiguous() for p in net.parameters())  # a copy was laid out, not the net


def test_an_mcts_agent_finds_its_kept_trees_when_the_games_change_rows():
    """With reuse_tree, a search starts from the subtree the agent's last search grew below the position
    reached, whichever row of the batch the game is given in next (finished games leave a match's batch
    and the others move up); without it every search starts afresh."""
    from agents.learned import MCTSAgent
    from agents.mcts import MCTSConfig

    torch.manual_seed(0)
    net = PolicyValueNet(8, NetConfig(channels=8, blocks=1, value_hidden=8))
    start = Board("american")
    boards = [start]
    for move in sorted(start.legal_moves(), key=str)[4:6]:  # quiet positions, none a move from another
        boards.append(start.copy())
        boards[-1].push(move)
    for reuse in (True, False):
        agent = MCTSAgent(net, "american", MCTSConfig(simulations=24, reuse_tree=reuse), seed=0)
        moves = agent.select_moves(boards)  # quiet moves of one leg: tree k searched board k
        chosen = agent._mcts.result(np.array([True, True, True])).visits.max(axis=1)
        after = [b.copy() for b in boards]
        for b, m in zip(after, moves):
            b.push(m)
        agent.select_moves(after[::-1])  # the same agent answers for the other side, in reversed rows
        if reuse:
            assert agent._mcts.carried.tolist() == chosen.tolist() and min(chosen) > 1
        else:
            assert not agent._mcts.carried.any()


def test_cpu_state_is_a_detached_copy_that_training_does_not_change():
    net = PolicyValueNet(8, NetConfig(channels=4, blocks=1, value_hidden=4))
    copy = cpu_state(net.state_dict())
    assert copy.keys() == net.state_dict().keys()
    with torch.no_grad():
        net.stem[0].weight.add_(1.0)
    assert not torch.equal(copy["stem.0.weight"], net.stem[0].weight)
    assert all(not v.requires_grad and v.device.type == "cpu" for v in copy.values())
