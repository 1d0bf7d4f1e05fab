"""The self-play worker with the search options: Gumbel root search and playout cap randomisation."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.mcts import MCTSConfig  # noqa: E402
from agents.networks import NetConfig  # noqa: E402
from train.alphazero.config import SelfPlayConfig  # noqa: E402
from train.alphazero.selfplay import POLICY_SLOTS, play_selfplay_games  # noqa: E402

NET = NetConfig(channels=8, blocks=1, value_hidden=8)


def _games(mcts: MCTSConfig, play: SelfPlayConfig, seed: int = 1, n: int = 4):
    return play_selfplay_games(None, NET, "american", mcts, play, seed=seed, num_games=n)


def test_gumbel_self_play_stores_improved_policies_and_is_reproducible():
    mcts = MCTSConfig(simulations=6, root="gumbel", gumbel_considered=4)
    play = SelfPlayConfig(parallel_games=4, max_moves=16)
    a, b = _games(mcts, play), _games(mcts, play)
    assert [g.moves for g in a] == [g.moves for g in b]
    for g in a:
        assert g.policy_actions.shape[1] == POLICY_SLOTS and g.positions > 0
        kept = g.policy_actions >= 0
        sums = np.where(kept, g.policy_probs, 0).astype(np.float32).sum(1)
        assert np.allclose(sums, 1.0, atol=1e-2)
        # the improved policy gives weight to legs the search never visited too: not a one-hot of visits
        assert (np.where(kept, g.policy_probs, 0) > 0).sum(1).mean() > 1.5


def test_playout_cap_randomisation_stores_only_full_searches():
    mcts = MCTSConfig(simulations=8)
    everything = _games(mcts, SelfPlayConfig(parallel_games=4, max_moves=16, full_search_share=1.0))
    some = _games(mcts, SelfPlayConfig(parallel_games=4, max_moves=16, full_search_share=0.25, quick_simulations=2))
    stored_all = sum(g.positions for g in everything) / sum(g.plies for g in everything)
    stored_some = sum(g.positions for g in some) / sum(g.plies for g in some)
    assert stored_some < 0.6 * stored_all
    assert all(g.value_targets.shape == g.colours.shape for g in some)
    with pytest.raises(ValueError, match="full_search_share"):
        SelfPlayConfig(full_search_share=0.0)


def test_search_value_weight_mixes_the_root_value_into_the_targets():
    mcts = MCTSConfig(simulations=6)
    base = SelfPlayConfig(parallel_games=2, max_moves=10, adjudicate_margin=0.0)  # capped games are draws: z = 0
    plain = _games(mcts, base, n=2)
    mixed = _games(mcts, SelfPlayConfig(parallel_games=2, max_moves=10, adjudicate_margin=0.0, search_value_weight=1.0),
                   n=2)  # fmt: skip
    assert [g.moves for g in plain] == [g.moves for g in mixed]
    assert all(not g.value_targets.any() for g in plain if g.winner < 0)
    assert any(np.abs(g.value_targets).sum() > 0 for g in mixed)  # the root values came through
    assert all(np.abs(g.value_targets).max() <= 1.0 for g in mixed)
