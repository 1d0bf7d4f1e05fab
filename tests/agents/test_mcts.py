"""Batched PUCT MCTS: forced wins found across multi-leg captures, batching, configuration errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agents.mcts import ROOT_INDEX, BatchedMCTS, CachingEvaluator, MCTSConfig, halving_schedule, uniform_evaluator
from checkers_env.core import Board
from checkers_env.encoding import legal_action_sequences
from checkers_env.game import game_from_board


def _search(board, sims, trees=1, rng=None):
    mcts = BatchedMCTS(board.rules, trees, MCTSConfig(simulations=sims))
    games = np.stack([game_from_board(board)] * trees)
    result = mcts.search(games, np.ones(trees, dtype=np.bool_), uniform_evaluator, rng)
    return result.visits, result.root_value


def test_visits_concentrate_on_a_two_leg_winning_capture():
    # White to move: 22x15x8 takes both black men and wins; 23x14 takes one.
    # The win is two legs by the same player: the value must not flip sign between them.
    board = Board("american", fen="W:W22,23:B11,18")
    seqs = legal_action_sequences(board)
    win_first_leg = next(seq[0] for seq, m in seqs.items() if str(m) == "22x8")
    other = next(seq[0] for seq, m in seqs.items() if str(m) == "23x14")
    visits, value = _search(board, 64)
    assert visits[0, win_first_leg] >= 0.8 * visits[0].sum()
    assert visits[0, win_first_leg] > 5 * visits[0, other]
    assert value[0] > 0.5


def test_visits_concentrate_on_the_winning_move_among_quiet_ones():
    # Captures optional (house rule): taking the last black man wins at once; the other moves do not.
    board = Board("american", fen="W:W22,30:B18", forced_capture=False)
    seqs = legal_action_sequences(board)
    assert len(seqs) >= 3
    win = next(seq[0] for seq, m in seqs.items() if m.captures)
    visits, _ = _search(board, 48)
    assert visits[0].argmax() == win
    assert visits[0, win] >= 0.7 * visits[0].sum()


def test_black_to_move_finds_its_win_in_the_mover_frame():
    # Black's legs are numbered after the half turn; the winning capture must still be found.
    board = Board("american", fen="B:W18:B14,3", forced_capture=False)
    seqs = legal_action_sequences(board)
    assert len(seqs) >= 3
    win = next(seq[0] for seq, m in seqs.items() if m.captures)
    visits, value = _search(board, 48)
    assert visits[0].argmax() == win
    assert value[0] > 0.5


def test_trees_are_independent_and_inactive_trees_are_untouched():
    board = Board("american")
    mcts = BatchedMCTS("american", 3, MCTSConfig(simulations=20))
    games = np.stack([game_from_board(board)] * 3)
    visits = mcts.search(games, np.array([True, False, True]), uniform_evaluator, np.random.default_rng(0)).visits
    assert visits[1].sum() == 0
    # the first round expands the root, each later one visits a child
    assert visits[0].sum() == 19 and visits[2].sum() == 19
    legal = {seq[0] for seq in legal_action_sequences(board)}
    assert set(np.flatnonzero(visits[0])) <= legal


def test_config_errors():
    with pytest.raises(ValueError, match="simulations"):
        MCTSConfig(simulations=1)
    with pytest.raises(ValueError, match="dirichlet_fraction"):
        MCTSConfig(dirichlet_fraction=2.0)
    mcts = BatchedMCTS("american", 2, MCTSConfig(simulations=4))
    with pytest.raises(ValueError, match="games must be"):
        mcts.search(np.zeros((3, 5), dtype=np.int64), np.ones(3, dtype=bool), uniform_evaluator)


def test_forced_legs_are_walked_through_without_the_network():
    """Leaves with one legal leg are never sent to the evaluator; the search sees past them."""
    # White to move with a free choice; several replies lead into forced captures.
    board = Board("american", fen="W:W21,22,23,25,28,29,30,31,32:B1,2,3,4,8,11,12,13,14")
    evaluated = []

    def counting(obs, masks):
        evaluated.extend(masks.sum(axis=1).tolist())
        return uniform_evaluator(obs, masks)

    mcts = BatchedMCTS(board.rules, 1, MCTSConfig(simulations=200))
    visits = mcts.search(np.stack([game_from_board(board)]), np.ones(1, dtype=np.bool_), counting).visits
    assert len(evaluated) >= 150  # nearly one evaluation per simulation
    assert min(evaluated) >= 2
    assert visits[0].sum() == 199


def test_discount_counts_whole_moves_not_legs():
    """A two-leg winning capture is one move: its win is discounted once at the root."""
    board = Board("american", fen="W:W22,23:B11,18")
    roots = {}
    for discount in (1.0, 0.9):
        mcts = BatchedMCTS(board.rules, 1, MCTSConfig(simulations=200, discount=discount))
        value = mcts.search(
            np.stack([game_from_board(board)]), np.ones(1, dtype=np.bool_), uniform_evaluator
        ).root_value
        roots[discount] = float(value[0])
    assert roots[1.0] > 0.9
    assert abs(roots[0.9] - 0.9 * roots[1.0]) < 0.02


def test_bad_discount_is_rejected():
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match="discount"):
            MCTSConfig(discount=bad)


def test_halving_schedule_visits_every_considered_leg_then_halves():
    seq = halving_schedule(4, 16)
    assert len(seq) == 16
    assert list(seq[:4]) == [0, 0, 0, 0]  # phase 1: each of the 4 legs once (twice: 16 // (2 * 4) = 2)
    assert list(seq[4:8]) == [1, 1, 1, 1]
    assert list(seq[8:12]) == [2, 2, 3, 3]  # phase 2: the better 2, twice each
    assert list(halving_schedule(1, 5)) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("fen, winning_move", [("W:W22,23:B11,18", "22x8"), ("B:W18:B14,3", None)])
def test_gumbel_root_finds_the_winning_move_with_few_simulations(fen, winning_move):
    board = Board("american", fen=fen, forced_capture=winning_move is not None)
    seqs = legal_action_sequences(board)
    win = next(seq[0] for seq, m in seqs.items() if (str(m) == winning_move if winning_move else m.captures))
    config = MCTSConfig(simulations=16, root="gumbel")
    mcts = BatchedMCTS(board.rules, 2, config)
    games = np.stack([game_from_board(board)] * 2)
    for rng in (None, np.random.default_rng(3)):
        result = mcts.search(games, np.array([True, False]), uniform_evaluator, rng)
        assert result.action[0] == win and result.action[1] == -1
        # the improved policy puts more weight on the win than the uniform prior did
        legal = np.flatnonzero(result.policy[0])
        assert set(legal) == {seq[0] for seq in seqs}
        assert result.policy[0].sum() == pytest.approx(1.0, abs=1e-5)
        assert result.policy[0, win] > 1.5 / len(legal)


def test_gumbel_sampling_without_noise_is_deterministic_and_with_noise_explores():
    board = Board("american")
    config = MCTSConfig(simulations=8, root="gumbel", gumbel_considered=4)
    mcts = BatchedMCTS(board.rules, 1, config)
    games = np.stack([game_from_board(board)])
    plain = {int(mcts.search(games, np.ones(1, bool), uniform_evaluator).action[0]) for _ in range(3)}
    assert len(plain) == 1
    noisy = {int(mcts.search(games, np.ones(1, bool), uniform_evaluator, np.random.default_rng(s)).action[0])
             for s in range(20)}  # fmt: skip
    assert len(noisy) >= 3


def test_per_tree_budgets():
    board = Board("american")
    mcts = BatchedMCTS("american", 2, MCTSConfig(simulations=20))
    games = np.stack([game_from_board(board)] * 2)
    result = mcts.search(games, np.ones(2, dtype=np.bool_), uniform_evaluator, simulations=np.array([20, 5]))
    assert result.visits[0].sum() == 19 and result.visits[1].sum() == 4
    with pytest.raises(ValueError, match="simulations"):
        mcts.search(games, np.ones(2, dtype=np.bool_), uniform_evaluator, simulations=np.array([21, 5]))


def test_caching_evaluator_sends_each_distinct_position_once_and_answers_the_same():
    calls = []

    def counting(obs, masks):
        calls.append(len(obs))
        rng = np.random.default_rng(len(calls))
        return uniform_evaluator(obs, masks)[0], rng.uniform(-1, 1, len(obs)).astype(np.float32)

    board = Board("american")
    cached = CachingEvaluator(counting)
    mcts = BatchedMCTS("american", 4, MCTSConfig(simulations=12))
    games = np.stack([game_from_board(board)] * 4)
    mcts.search(games, np.ones(4, dtype=np.bool_), cached, np.random.default_rng(0))
    assert cached.evaluated < cached.asked  # four trees of one position share their evaluations
    obs = np.random.default_rng(1).random((3, 8, 8, 8)).astype(np.float32)
    masks = np.zeros((3, 896), dtype=np.int8)
    masks[:, [5, 9]] = 1
    obs[2] = obs[0]
    before = cached.evaluated
    p, v = cached(obs, masks)
    assert cached.evaluated - before == 2 and v[0] == v[2] and np.array_equal(p[0], p[2])
    p2, v2 = cached(obs, masks)
    assert cached.evaluated - before == 2 and np.array_equal(p, p2) and np.array_equal(v, v2)
    assert set(np.flatnonzero(p[0])) == {5, 9}


def _varied_evaluator(obs, masks):
    """Deterministic, position-dependent priors and values, so that trees differ by position."""
    flat = obs.reshape(len(obs), -1).astype(np.float64)
    weights = np.sin(np.arange(flat.shape[1]))
    values = np.tanh(flat @ weights / 8.0).astype(np.float32)
    priors = masks * (1.0 + np.arange(masks.shape[1]) % 7)
    return (priors / priors.sum(axis=1, keepdims=True)).astype(np.float32), values


@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_searches_begun_at_different_rounds_match_searches_run_alone(root):
    # Tree 0 begins at once with 20 simulations, tree 1 seven rounds later with 12, tree 2 never:
    # each ends after its own budget of rounds and finds what a search of its root alone finds.
    boards = [Board("american"), Board("american", fen="W:W21,22,23,25,27:B5,9,10,14,16")]
    config = MCTSConfig(simulations=20, root=root)
    games = np.stack([game_from_board(boards[0]), game_from_board(boards[1]), game_from_board(boards[0])])
    mcts = BatchedMCTS("american", 3, config)
    batches = []

    def recording(obs, masks):
        batches.append(len(obs))
        return _varied_evaluator(obs, masks)

    mcts.begin(games, np.array([True, False, False]), simulations=np.array([20, 2, 2]))
    ended_at = {}
    for r in range(1, 40):
        if r == 8:
            mcts.begin(games, np.array([False, True, False]), simulations=np.array([2, 12, 2]))
            with pytest.raises(ValueError, match="searching already"):
                mcts.begin(games, np.array([True, False, False]))
        for b in np.flatnonzero(mcts.step(recording)):
            ended_at[int(b)] = r
        if not mcts.searching.any():
            break
    assert ended_at == {0: 20, 1: 19}
    assert batches[7:19] == [2] * 12  # one leaf of each tree searching, in one call
    together = mcts.result(np.array([True, True, False]))
    assert together.visits[2].sum() == 0 and together.action[2] == -1
    for b, sims in ((0, 20), (1, 12)):
        alone = BatchedMCTS("american", 1, config).search(games[b : b + 1], np.ones(1, bool), _varied_evaluator,
                                                          simulations=sims)  # fmt: skip
        assert np.array_equal(together.visits[b], alone.visits[0])
        assert np.allclose(together.policy[b], alone.policy[0])
        assert together.root_value[b] == pytest.approx(alone.root_value[0])
        assert together.action[b] == alone.action[0]


# ---------------------------------------------------------------- keeping the subtree (reuse_tree)


def _subtree(tree, b, node, flip=False):
    """``{legs from node: (visits, value_sum, prior, n_children)}`` of the subtree below ``node``; ``flip``
    negates the node's own value (a kept root's value is turned to its player's side)."""
    out = {}
    todo = [((), node)]
    while todo:
        legs, i = todo.pop()
        value = -tree.value_sum[b, i] if flip and i == node else tree.value_sum[b, i]
        out[legs] = (int(tree.visits[b, i]), float(value), float(tree.prior[b, i]) if legs else 0.0,
                     int(tree.n_children[b, i]))  # fmt: skip
        first = tree.child_start[b, i]
        if first >= 0:
            todo.extend((legs + (int(tree.action[b, c]),), c) for c in range(first, first + tree.n_children[b, i]))
    return out


def _check_states(mcts, b):
    """Every made state of tree ``b`` is its parent's stepped by its leg, and the kernels' bookkeeping holds."""
    from checkers_env.core import movegen as mg
    from checkers_env.encoding import make_tables
    from checkers_env.game import step_game

    tree = mcts.tree
    params, tables = mg.make_params(mcts.rules), make_tables(mcts.rules.board_size)
    moves, scratch = mg.new_move_buffer(), mg.new_scratch()
    for i in range(tree.n_nodes[b]):
        assert tree.slot[b, i] < tree.n_states[b]
        first = tree.child_start[b, i]
        if first < 0:
            continue
        assert i < first and first + tree.n_children[b, i] <= tree.n_nodes[b]
        below = tree.visits[b, first : first + tree.n_children[b, i]].sum()
        assert tree.visits[b, i] in (below, below + 1)
        for c in range(first, first + tree.n_children[b, i]):
            if tree.slot[b, c] >= 0:
                game = tree.states[b, tree.slot[b, i]].copy()
                step_game(game, tree.action[b, c], params, tables, moves, scratch, 0, False)
                assert np.array_equal(game, tree.states[b, tree.slot[b, c]])


def test_a_search_of_the_same_position_again_goes_on_where_it_stopped():
    # PUCT without noise is deterministic: 20 simulations, then 20 more in the kept tree, are a search of 40
    board = Board("american", fen="W:W21,22,23,25,27:B5,9,10,14,16")
    games = game_from_board(board)[None]
    one = np.ones(1, dtype=np.bool_)
    kept = BatchedMCTS("american", 1, MCTSConfig(simulations=20, reuse_tree=True))
    kept.search(games, one, _varied_evaluator)
    assert kept.carried[0] == 0
    again = kept.search(games, one, _varied_evaluator)
    assert kept.carried[0] == 20 and kept.tree.visits[0, 0] == 40
    whole = BatchedMCTS("american", 1, MCTSConfig(simulations=40)).search(games, one, _varied_evaluator)
    assert np.array_equal(again.visits, whole.visits)
    assert again.root_value[0] == pytest.approx(whole.root_value[0])


def test_the_kept_subtree_is_the_one_below_the_position_reached():
    board = Board("american")
    mcts = BatchedMCTS("american", 1, MCTSConfig(simulations=48, reuse_tree=True))
    one = np.ones(1, dtype=np.bool_)
    first = mcts.search(game_from_board(board)[None], one, _varied_evaluator)
    leg = int(first.visits[0].argmax())
    tree = mcts.tree
    child = next(c for c in range(tree.child_start[0, 0], tree.child_start[0, 0] + tree.n_children[0, 0])
                 if tree.action[0, c] == leg)  # fmt: skip
    # a whole move by one player: the values below turn to the other side
    expected = _subtree(tree, 0, child, flip=True)
    after = board.copy()
    after.push(next(m for seq, m in legal_action_sequences(board).items() if seq == (leg,)))
    reached = game_from_board(after)[None]
    mcts.begin(reached, one)
    assert mcts.carried[0] == expected[()][0] > 1
    assert _subtree(mcts.tree, 0, 0) == expected
    _check_states(mcts, 0)
    while mcts.searching.any():
        mcts.step(_varied_evaluator)
    assert mcts.tree.visits[0, 0] == expected[()][0] + 48
    _check_states(mcts, 0)
    # a position the tree does not hold starts afresh, as a new search object would
    elsewhere = game_from_board(Board("american", fen="W:W21,22,23,25,27:B5,9,10,14,16"))[None]
    fresh = mcts.search(elsewhere, one, _varied_evaluator)
    assert mcts.carried[0] == 0
    alone = BatchedMCTS("american", 1, MCTSConfig(simulations=48)).search(elsewhere, one, _varied_evaluator)
    assert np.array_equal(fresh.visits, alone.visits)


def test_a_subtree_too_large_to_leave_room_for_a_search_is_dropped():
    games = game_from_board(Board("american"))[None]
    one = np.ones(1, dtype=np.bool_)
    mcts = BatchedMCTS("american", 1, MCTSConfig(simulations=30, reuse_tree=True))
    mcts.search(games, one, _varied_evaluator)
    mcts._keep_states = int(mcts.tree.n_states[0]) - 1  # the whole tree no longer fits as a kept subtree
    result = mcts.search(games, one, _varied_evaluator)
    assert mcts.carried[0] == 0 and result.visits.sum() == 29


def test_place_sends_each_position_to_the_tree_that_holds_it():
    boards = [Board("american"), Board("american", fen="W:W21,22,23,25,27:B5,9,10,14,16")]
    games = np.stack([game_from_board(b) for b in boards])
    mcts = BatchedMCTS("american", 3, MCTSConfig(simulations=10, reuse_tree=True))
    mcts.search(np.stack([games[0], games[0], games[1]]), np.array([False, True, True]), _varied_evaluator)
    # the games have swapped rows and a third position is held by no tree
    third = game_from_board(Board("american", fen="B:W21,22,23,25,27:B5,9,10,14,16"))
    assert mcts.place(np.stack([games[1], games[0], third])).tolist() == [2, 1, 0]
    assert mcts.place(np.stack([games[0], games[0]])).tolist() == [1, 0]  # one tree each, held or not
    plain = BatchedMCTS("american", 3, MCTSConfig(simulations=10))
    assert plain.place(np.stack([games[1], games[0]])).tolist() == [0, 1]
    with pytest.raises(ValueError, match="K <= 3"):
        mcts.place(np.stack([games[0]] * 4))


def test_reuse_needs_the_puct_root():
    with pytest.raises(ValueError, match="reuse_tree needs the puct root"):
        MCTSConfig(reuse_tree=True, root="gumbel")


def test_the_material_mix_steers_the_search_away_from_a_man_left_en_prise():
    """With ``material_mix`` the search sees a man lost a few plies on even when the network
    (here uniform, value 0) cannot: the legs that lose a man get few visits; without it, as many as
    the others."""
    # 22-17, 23-18 and 22-18 each lose a man to Black's reply (a four-ply material search agrees);
    # 28-24 and 23-19 lose nothing
    board = Board("american", fen="W:W28,23,22:B15,2,14")
    seqs = legal_action_sequences(board)
    losing = [seq[0] for seq, m in seqs.items() if str(m) in ("22-17", "23-18", "22-18")]
    assert len(losing) == 3 and len(seqs) == 5

    def losing_share(mix):
        mcts = BatchedMCTS(board.rules, 1, MCTSConfig(simulations=64, material_mix=mix))
        visits = mcts.search(game_from_board(board)[None], np.ones(1, dtype=np.bool_), uniform_evaluator).visits[0]
        return visits[losing].sum() / visits.sum()

    assert losing_share(0.0) > 0.5
    assert losing_share(1.0) < 0.25


def test_the_material_mix_values_a_quiet_leaf_by_its_material():
    # White a king up, nothing to take for several moves: every evaluated leaf is worth tanh(1.5 / 3)
    # to White (the uniform network says 0), so with the whole weight on material the root value is that
    board = Board("american", fen="W:WK29,32:B1")
    config = MCTSConfig(simulations=8, material_mix=1.0, discount=1.0)
    result = BatchedMCTS(board.rules, 1, config).search(
        game_from_board(board)[None], np.ones(1, dtype=np.bool_), uniform_evaluator
    )
    assert result.root_value[0] == pytest.approx(np.tanh(1.5 / 3.0), abs=1e-5)
    half = BatchedMCTS(board.rules, 1, dataclasses.replace(config, material_mix=0.5)).search(
        game_from_board(board)[None], np.ones(1, dtype=np.bool_), uniform_evaluator
    )
    assert half.root_value[0] == pytest.approx(0.5 * np.tanh(1.5 / 3.0), abs=1e-5)


@pytest.mark.parametrize("bad", [{"material_mix": -0.1}, {"material_mix": 1.5}, {"material_scale": 0.0}])
def test_bad_material_settings_are_rejected(bad):
    with pytest.raises(ValueError, match="material_mix must be in"):
        MCTSConfig(**bad)


# ---------------------------------------------------------------- implicit minimax backups (minimax_weight)


def _check_minimax_values(tree, b, discount):
    """Every visited node's ``best_value``: a terminal node's exact value; an expanded node's, the best of
    its visited children's for the colour choosing among them, turned to its mover's side."""
    checked = 0
    for node in range(int(tree.n_nodes[b])):
        if tree.visits[b, node] == 0:
            continue
        if tree.terminal[b, node]:
            assert tree.best_value[b, node] == tree.term_value[b, node]
            continue
        first, k = int(tree.child_start[b, node]), int(tree.n_children[b, node])
        seen = [c for c in range(first, first + k) if first >= 0 and tree.visits[b, c] > 0]
        if not seen:
            continue
        best = max(tree.best_value[b, c] * (discount if tree.turn[b, c] != tree.mover[b, c] else 1.0) for c in seen)
        expected = best if tree.mover[b, node] == tree.turn[b, node] else -best
        assert tree.best_value[b, node] == pytest.approx(expected, abs=1e-6), node
        checked += 1
    return checked


def test_every_node_keeps_the_minimax_of_its_visited_children():
    # a discount below 1 is applied per whole move; with the weight 0 the values are not kept at all
    board = Board("american", fen="W:W21,22,23,25,27:B5,9,10,14,16")
    config = MCTSConfig(simulations=60, minimax_weight=0.5, discount=0.9)
    mcts = BatchedMCTS("american", 1, config)
    mcts.search(game_from_board(board)[None], np.ones(1, dtype=np.bool_), _varied_evaluator)
    assert _check_minimax_values(mcts.tree, 0, 0.9) > 10
    plain = BatchedMCTS("american", 1, dataclasses.replace(config, minimax_weight=0.0))
    plain.search(game_from_board(board)[None], np.ones(1, dtype=np.bool_), _varied_evaluator)
    assert not plain.tree.best_value.any()


def test_a_kept_subtree_keeps_its_minimax_values_turned_to_its_new_root():
    board = Board("american")
    config = MCTSConfig(simulations=80, minimax_weight=0.5, reuse_tree=True)
    mcts = BatchedMCTS("american", 1, config)
    mcts.search(game_from_board(board)[None], np.ones(1, dtype=np.bool_), _varied_evaluator)
    # the position after the most visited leg and the most visited reply: a node whose mover is Black
    tree = mcts.tree
    node = ROOT_INDEX
    for _ in range(2):
        first, k = tree.child_start[0, node], tree.n_children[0, node]
        node = first + int(np.argmax(tree.visits[0, first : first + k]))
    kept = tree.best_value[0, node]
    assert tree.mover[0, node] != tree.turn[0, node]
    position = tree.states[0, tree.slot[0, node]].copy()
    mcts.begin(position[None], np.ones(1, dtype=np.bool_))
    assert mcts.carried[0] > 0 and tree.best_value[0, ROOT_INDEX] == -kept
    while mcts.searching.any():
        mcts.step(_varied_evaluator)
    assert _check_minimax_values(tree, 0, 1.0) > 10


def test_a_win_found_below_is_the_roots_minimax_value_at_once():
    # 22x15x8 wins; with the uniform network (value 0) the root's mean lags behind, its minimax does not
    board = Board("american", fen="W:W22,23:B11,18")
    mcts = BatchedMCTS(board.rules, 1, MCTSConfig(simulations=8, minimax_weight=1.0))
    result = mcts.search(game_from_board(board)[None], np.ones(1, dtype=np.bool_), uniform_evaluator)
    assert mcts.tree.best_value[0, ROOT_INDEX] == 1.0
    assert result.root_value[0] < 1.0


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_bad_minimax_weights_are_rejected(bad):
    with pytest.raises(ValueError, match="minimax_weight must be in"):
        MCTSConfig(minimax_weight=bad)


def _pruned_and_plain(board, sims, seed=None, **config):
    results = []
    for prune in (False, True):
        mcts = BatchedMCTS(board.rules, 1, MCTSConfig(simulations=sims, prune_policy_target=prune, **config))
        rng = None if seed is None else np.random.default_rng(seed)
        games = np.stack([game_from_board(board)])
        results.append(mcts.search(games, np.ones(1, dtype=np.bool_), uniform_evaluator, rng))
    return results


def test_pruning_takes_the_visits_the_noise_gave_out_of_the_target_only():
    # Captures optional: the capture wins at once, the quiet moves get visits from heavy root noise.
    board = Board("american", fen="W:W22,30:B18", forced_capture=False)
    win = next(seq[0] for seq, m in legal_action_sequences(board).items() if m.captures)
    gains = []
    for seed in range(6):
        plain, pruned = _pruned_and_plain(board, 200, seed=seed, dirichlet_fraction=0.9)
        np.testing.assert_array_equal(plain.visits, pruned.visits)  # the leg played is chosen as before
        assert pruned.policy[0].sum() == pytest.approx(1.0)
        # back to visit counts: a leg keeps no more than it had, and never a single visit
        kept = pruned.policy[0] / pruned.policy[0, win] * plain.visits[0, win]
        assert np.all(kept <= plain.visits[0] + 1e-3)
        assert not np.any(np.isclose(kept, 1.0))
        gains.append(pruned.policy[0, win] - plain.policy[0, win])
    assert min(gains) >= 0.0
    assert max(gains) > 0.05


def test_pruning_keeps_legs_as_good_as_the_best():
    # The opening: every leg is as good as another to a uniform evaluator, so the search's spread is
    # not exploration and most legs keep their visits.
    plain, pruned = _pruned_and_plain(Board("american"), 64)
    assert np.count_nonzero(pruned.policy[0]) >= np.count_nonzero(plain.policy[0]) - 2


def test_pruning_needs_the_puct_root():
    with pytest.raises(ValueError, match="puct root"):
        MCTSConfig(prune_policy_target=True, root="gumbel")


# ---------------------------------------------------------------- the prior's temperature (prior_temperature)


def _leaning_evaluator(obs, masks):
    """Priors that lean towards the legal leg of the lowest action index (weights 4, 2, 1, 1, ...)."""
    priors = np.zeros(masks.shape, dtype=np.float32)
    for i, row in enumerate(masks):
        legal = np.flatnonzero(row)
        weights = np.ones(len(legal))
        weights[:2] = (4.0, 2.0)[: len(legal)]
        priors[i, legal] = weights / weights.sum()
    return priors, np.zeros(len(obs), dtype=np.float32)


def _root_priors(board, temperature):
    """The root's priors by leg, and its visits, after a search reading ``_leaning_evaluator`` at ``temperature``."""
    mcts = BatchedMCTS(board.rules, 1, MCTSConfig(simulations=64, prior_temperature=temperature))
    result = mcts.search(game_from_board(board)[None], np.ones(1, dtype=np.bool_), _leaning_evaluator)
    first, count = mcts.tree.child_start[0, ROOT_INDEX], mcts.tree.n_children[0, ROOT_INDEX]
    priors = np.zeros(result.visits.shape[1], dtype=np.float32)
    priors[mcts.tree.action[0, first : first + count]] = mcts.tree.prior[0, first : first + count]
    return priors, result.visits[0]


def test_the_search_reads_the_prior_raised_to_the_power_one_over_the_temperature():
    board = Board("american")  # seven legal legs, all alike to a value-0 network
    legal = (_root_priors(board, 1.0)[0] > 0)[None]
    network = _leaning_evaluator(np.zeros((1, 1)), legal)[0][0]
    shares = {}
    for temperature in (1.0, 0.5, 2.0):
        priors, visits = _root_priors(board, temperature)
        expected = network ** (1.0 / temperature)
        np.testing.assert_allclose(priors, expected / expected.sum(), rtol=1e-5)  # illegal legs stay at zero
        shares[temperature] = visits.max() / visits.sum()
    assert shares[0.5] > shares[1.0] > shares[2.0]  # a sharper prior puts more visits on the preferred leg
    # far below 1 the legs behind underflow and the preferred one does not: no row is left all zero
    priors, _ = _root_priors(board, 1e-3)
    assert np.isfinite(priors).all() and priors.max() == pytest.approx(1.0)


@pytest.mark.parametrize("bad", [0.0, -1.0])
def test_bad_prior_temperatures_are_rejected(bad):
    with pytest.raises(ValueError, match="prior_temperature must be positive"):
        MCTSConfig(prior_temperature=bad)
