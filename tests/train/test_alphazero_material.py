"""The material head's auxiliary targets: what they count, how far they look, and that they are learned."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.networks import NetConfig, PolicyValueNet  # noqa: E402
from checkers_env.core import Board  # noqa: E402
from checkers_env.observation import planes_of  # noqa: E402
from train.alphazero.loss import train_step  # noqa: E402
from train.alphazero.replay import (  # noqa: E402
    MATERIAL_SCALE,
    ReplayBuffer,
    decode_record,
    encode_record,
    material_targets,
)
from train.alphazero.selfplay import GameRecord  # noqa: E402


def _planes(own_men=0, own_kings=0, opponent_men=0, opponent_kings=0, jumped_men=0):
    """Observation planes with the given counts of pieces (placed on distinct dark cells)."""
    obs = np.zeros((8, 8, 8), dtype=np.float16)
    cells = [(r, f) for r in range(8) for f in range(8) if (r + f) % 2 == 1]
    k = 0
    for plane, count in ((0, own_men), (1, own_kings), (2, opponent_men), (3, opponent_kings)):
        for _ in range(count):
            obs[(plane, *cells[k])] = 1
            if plane == 2 and jumped_men > 0:
                obs[(5, *cells[k])] = 1  # jumped in the capture in progress
                jumped_men -= 1
            k += 1
    return obs


def _record(observations, colours, move_numbers):
    n = len(colours)
    return GameRecord(
        observations=np.stack(observations), policy_actions=np.full((n, 48), -1, np.int16),
        policy_probs=np.zeros((n, 48), np.float16), colours=np.array(colours, np.int8),
        value_targets=np.zeros(n, np.float32), winner=-1, move_numbers=np.array(move_numbers, np.int16),
    )  # fmt: skip


def test_material_target_is_the_movers_gain_a_horizon_ahead():
    # White to move, 12 v 12; Black to move a move later, then White 11 v 12 (White lost a man); then
    # White to move with a king for a man back (11 men + ... seen by White: 10 men 1 king v 11)
    obs = [
        _planes(own_men=12, opponent_men=12),  # move 0, White: lead 0
        _planes(own_men=12, opponent_men=12),  # move 1, Black: lead 0
        _planes(own_men=11, opponent_men=12),  # move 2, White: lead -1
        _planes(own_men=12, opponent_men=11),  # move 3, Black: lead +1 (White's -1)
        _planes(own_men=10, own_kings=1, opponent_men=10),  # move 4, White: lead +1.5
    ]
    colours, moves = [0, 1, 0, 1, 0], [0, 1, 2, 3, 4]
    t = material_targets(np.stack(obs), np.array(colours, np.int8), np.array(moves), horizon=2)
    # White at 0: lead 0 -> at move 2 -1 (gain -1); Black at 1: White's lead 0 -> -1 at 3, Black gains +1;
    # White at 2: -1 -> +1.5 at 4 (+2.5); Black at 3: the game's last position (White +1.5 from -1: -2.5)
    np.testing.assert_allclose(t, np.array([-1, 1, 2.5, -2.5, 0]) / MATERIAL_SCALE, rtol=1e-6)
    # a longer horizon reaches the last position from all of them; large swings are clipped
    far = material_targets(np.stack(obs), np.array(colours, np.int8), np.array(moves), horizon=10)
    np.testing.assert_allclose(far, np.array([1.5, -1.5, 2.5, -2.5, 0]) / MATERIAL_SCALE, rtol=1e-6)
    big = [_planes(own_men=12, opponent_men=12), _planes(own_men=7, opponent_men=12)]
    assert material_targets(np.stack(big), np.zeros(2, np.int8), np.array([0, 2]), horizon=1)[0] == -1.0


def test_men_jumped_in_a_capture_in_progress_count_as_gone():
    obs = [_planes(own_men=12, opponent_men=12, jumped_men=1), _planes(own_men=12, opponent_men=11)]
    t = material_targets(np.stack(obs), np.zeros(2, np.int8), np.array([0, 1]), horizon=1)
    assert t[0] == 0.0  # the man was already won in the first position


def test_material_reads_the_planes_of_a_real_board():
    board = Board("american")
    own = planes_of(board)
    assert material_targets(own[None], np.zeros(1, np.int8), np.zeros(0), horizon=1)[0] == 0.0


def test_records_keep_their_move_numbers_and_old_records_still_decode():
    game = _record([_planes(own_men=12, opponent_men=12)] * 3, [0, 1, 0], [0, 3, 7])
    back = decode_record(encode_record(game))
    np.testing.assert_array_equal(back.move_numbers, [0, 3, 7])
    assert (back.start_move, back.late_start) == (0, False)
    game.start_move, game.late_start = 91, True  # a game started from a late position keeps saying so
    assert (lambda g: (g.start_move, g.late_start))(decode_record(encode_record(game))) == (91, True)
    game.move_numbers = np.zeros(0, np.int16)  # as logged before move numbers were kept
    old = decode_record(encode_record(game))
    assert len(old.move_numbers) == 0
    buffer = ReplayBuffer(10, 8, material_horizon=1)
    buffer.add_game(old)  # each stored position counts as one move
    assert buffer.size == 3 and not buffer.material[:3].any()


def test_the_material_head_learns_its_targets_and_only_when_asked():
    torch.manual_seed(0)
    net = PolicyValueNet(8, NetConfig(channels=8, blocks=1, value_hidden=8, material_head=True))
    opt = torch.optim.AdamW(net.parameters(), lr=1e-2)
    obs = np.stack([_planes(own_men=12, opponent_men=12), _planes(own_men=12, opponent_men=9)] * 8)
    batch = {"obs": obs.astype(np.float32), "acts": np.full((16, 48), -1, np.int16),
             "probs": np.zeros((16, 48), np.float32), "values": np.zeros(16, np.float32),
             "material": np.tile(np.array([0.5, -0.5], np.float32), 8)}  # fmt: skip
    batch["acts"][:, 0] = 0
    batch["probs"][:, 0] = 1
    first = train_step(net, opt, batch, material_weight=1.0)["material_loss"]
    for _ in range(60):
        last = train_step(net, opt, batch, material_weight=1.0)["material_loss"]
    assert last < first / 4
    assert "material_loss" not in train_step(net, opt, batch, material_weight=0.0)
    plain = PolicyValueNet(8, NetConfig(channels=8, blocks=1, value_hidden=8))
    assert "material_loss" not in train_step(plain, torch.optim.AdamW(plain.parameters()), batch, material_weight=1.0)
