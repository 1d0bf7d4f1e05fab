"""MinimaxAgent: composed wins, agreement with full minimax, legality, reproducibility."""

from __future__ import annotations

import numpy as np
import pytest
from minimax_reference import root_scores

from agents import MinimaxAgent, RandomAgent
from agents.minimax import evaluate_board
from checkers_env.core import VARIANTS, Board


def random_position(variant: str, rng: np.random.Generator, plies: int) -> Board:
    board = Board(variant)
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves or board.outcome() is not None:
            break
        board.push(moves[int(rng.integers(len(moves)))])
    return board


def test_shot_gives_one_man_to_take_two():
    # White gives the man on 26 (26-22); after 17x26 the man on 30 jumps 26 and 18.
    board = Board("american", fen="W:W12,26,30:B16,17,18")
    agent = MinimaxAgent(depth=3, seed=0)
    assert str(agent.select_move(board)) == "26-22"
    assert agent.last_search.score >= 100
    board.push("26-22")
    board.push("17x26")
    reply = agent.select_move(board)
    assert len(reply.captures) == 2


def test_shot_on_the_big_board():
    # International: 40-34 gives a man; after 29x40 the man on 35 takes 40 and 39.
    board = Board("international", fen="W:W11,30,35,40:B1,20,29,39")
    agent = MinimaxAgent(depth=3, seed=0)
    assert str(agent.select_move(board)) == "40-34"
    assert agent.last_search.score >= 100
    board.push("40-34")
    board.push("29x40")
    reply = agent.select_move(board)
    assert sorted(board.square_name(i) for i in reply.captures) == ["39", "40"]


def test_king_trap_in_the_single_corner():
    # The black king on 29 can only go to 25, which the man on 30 guards; 23-18
    # forces the black man off, after which the king must step out and is taken.
    board = Board("american", fen="W:W23,30:B10,K29")
    agent = MinimaxAgent(depth=6, seed=0)
    move = agent.select_move(board)
    assert str(move) == "23-18"
    assert agent.last_search.is_win
    shallow = MinimaxAgent(depth=1, seed=0, weights={"threat_extension": 0})
    shallow.select_move(board)
    assert not shallow.last_search.is_win


def test_takes_the_last_piece():
    # White takes Black's last piece: a win, scored as one.
    board = Board("american", fen="W:W22:B18")
    agent = MinimaxAgent(depth=2, seed=0)
    assert str(agent.select_move(board)) == "22x15"
    assert agent.last_search.is_win


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_alpha_beta_equals_full_minimax(variant):
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(5):
        board = random_position(variant, rng, int(rng.integers(6, 50)))
        if board.outcome() is not None or len(board.legal_moves()) < 2:
            continue  # a single legal move is played after a depth-1 search
        for depth in (1, 2, 3):
            agent = MinimaxAgent(depth=depth, seed=0, use_tt=False)
            move = agent.select_move(board)
            scores = root_scores(board, depth)
            best = max(scores.values())
            assert agent.last_search.score == best, (board.fen(), depth)
            assert scores[move] == best
            checked += 1
    assert checked >= 6


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_never_plays_an_illegal_move(variant):
    rng = np.random.default_rng(3)
    minimax = MinimaxAgent(nodes=400, seed=1)
    rand = RandomAgent(seed=2)
    positions = 0
    for _ in range(3):
        board = Board(variant)
        while board.outcome() is None and len(board.move_stack) < 160:
            if rng.random() < 0.5:
                move = minimax.select_move(board)
                assert board.is_legal(move)
                positions += 1
            else:
                move = rand.select_move(board)
            board.push(move)
    assert positions >= 50


def test_house_rule_without_forced_capture():
    board = Board("american", fen="B:W18:B14,1", forced_capture=False)
    moves = board.legal_moves()
    assert any(not m.captures for m in moves) and any(m.captures for m in moves)
    move = MinimaxAgent(depth=3, seed=0).select_move(board)
    assert board.is_legal(move)
    assert move.captures  # taking the man is clearly best


@pytest.mark.parametrize("variant", ["american", "international"])
def test_reproducible_for_a_seed(variant):
    def game(seed: int) -> list[str]:
        white, black = MinimaxAgent(depth=3, seed=seed), MinimaxAgent(nodes=3000, seed=seed + 1)
        board = Board(variant)
        players = {board.turn: white, board.turn.other: black}
        while board.outcome() is None and len(board.move_stack) < 60:
            board.push(players[board.turn].select_move(board))
        return [str(m) for m in board.move_stack]

    assert game(5) == game(5)


def test_ties_are_broken_by_the_seed():
    rng = np.random.default_rng(11)
    for _ in range(200):
        board = random_position("american", rng, int(rng.integers(0, 30)))
        if board.outcome() is not None:
            continue
        ties, info = MinimaxAgent(depth=3, seed=0).search(board)
        if len(ties) >= 2:
            break
    else:
        pytest.fail("no position with tied best moves found")
    assert info.ties == len(ties)
    chosen = {str(MinimaxAgent(depth=3, seed=s).select_move(board)) for s in range(40)}
    assert chosen == {str(m) for m in ties}
    picks = {str(MinimaxAgent(depth=3, seed=9).select_move(board)) for _ in range(5)}
    assert len(picks) == 1


def test_draw_clock_at_the_limit_is_a_draw():
    # Two kings against one is winning, but the clock has one ply left: nothing
    # wins in time, so the search must see a draw, not a won evaluation.
    fen_board = Board("american", fen="W:WK1,K3:BK32")
    state = fen_board.state
    state[4] = fen_board.rules.draw_plies - 1
    board = Board.from_state("american", state)
    agent = MinimaxAgent(depth=4, seed=0)
    agent.select_move(board)
    assert agent.last_search.score == 0
    assert evaluate_board(Board("american", fen="W:WK1,K3:BK32")) > 100


def test_time_limit_is_kept():
    agent = MinimaxAgent(time=0.2, seed=0)
    agent.select_move(Board("american"))  # warm up the kernel
    agent.select_move(Board("russian"))
    info = agent.last_search
    assert info.seconds < 0.6
    assert info.depth >= 3


def test_bad_limits_are_rejected():
    with pytest.raises(ValueError):
        MinimaxAgent(depth=0)
    with pytest.raises(ValueError):
        MinimaxAgent(time=-1)
    with pytest.raises(ValueError):
        MinimaxAgent(weights={"no_such_term": 1})


def test_search_tables_are_made_at_the_first_search():
    agent = MinimaxAgent(depth=2, seed=0)
    assert agent._own is None  # constructing an agent allocates no tables
    agent.select_move(Board("american"))
    assert agent._own is not None


def test_agents_sharing_a_pool_play_as_with_their_own_tables():
    from agents.minimax import SearchTablePool

    pool = SearchTablePool(size=1, tt_bits=12)
    games = [("american", 0), ("russian", 1), ("international", 2), ("american", 3)]
    for variant, seed in games:
        rng = np.random.default_rng(seed)
        board = random_position(variant, rng, 10)
        if board.outcome() is not None:
            continue
        alone = MinimaxAgent(depth=4, seed=seed, tt_bits=12, use_tt=True)
        shared = MinimaxAgent(depth=4, seed=seed, tables=pool)
        other = MinimaxAgent(depth=3, seed=seed, tables=pool, weights={"man": 90})
        for _ in range(3):  # interleave a stranger's searches: its entries must never leak into ours
            if board.outcome() is not None:
                break
            other.select_move(Board("brazilian"))
            expected = alone.select_move(board)
            assert shared.select_move(board) == expected, board.fen()
            assert shared.last_search.score == alone.last_search.score
            board.push(expected)
    assert pool.created == 1 and shared._own is None


def test_pool_never_holds_more_tables_than_its_size():
    import threading

    from agents.minimax import SearchTablePool

    pool = SearchTablePool(size=2, tt_bits=10)
    agents = [MinimaxAgent(depth=3, seed=i, tables=pool) for i in range(6)]
    errors = []

    def play(agent):
        try:
            agent.select_move(Board("american"))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(a,)) for a in agents]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and 1 <= pool.created <= 2
    assert all(a.last_search is not None for a in agents)
