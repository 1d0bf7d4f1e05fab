"""The self-play worker with the search options: Gumbel root search and playout cap randomisation."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.mcts import MCTSConfig  # noqa: E402
from agents.networks import NetConfig  # noqa: E402
from checkers_env.core.variants import get_rules  # noqa: E402
from train.alphazero.config import SelfPlayConfig  # noqa: E402
from train.alphazero.selfplay import POLICY_SLOTS, SelfPlayJob, play_selfplay_games  # noqa: E402

NET = NetConfig(channels=8, blocks=1, value_hidden=8)


def _games(mcts: MCTSConfig, play: SelfPlayConfig, seed: int = 1, n: int = 4):
    return play_selfplay_games(SelfPlayJob(None, NET, "american", mcts, play, seed=seed, num_games=n))


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


def test_gumbel_self_play_opens_its_games_differently_within_the_temperature_moves():
    # almost every search is a quick one (no noise of its own); a Gumbel root plays its halving winner, so
    # only the root noise that quick searches take within temperature_moves keeps the games apart
    mcts = MCTSConfig(simulations=8, root="gumbel", gumbel_considered=4)

    def openings(temperature_moves: int) -> int:
        play = SelfPlayConfig(parallel_games=16, max_moves=8, temperature_moves=temperature_moves,
                              full_search_share=0.01, quick_simulations=4)  # fmt: skip
        return len({tuple(g.moves[:6]) for g in _games(mcts, play, n=16)})

    assert openings(8) >= 12 and openings(0) <= 4


def test_self_play_that_keeps_its_subtrees_carries_visits_and_stays_reproducible(monkeypatch):
    from agents.mcts import BatchedMCTS

    carried = []
    original = BatchedMCTS.begin

    def recording(mcts, games, start, *args, **kwargs):
        original(mcts, games, start, *args, **kwargs)
        carried.extend(mcts.carried[start].tolist())

    monkeypatch.setattr(BatchedMCTS, "begin", recording)
    mcts = MCTSConfig(simulations=12, reuse_tree=True)
    play = SelfPlayConfig(parallel_games=4, max_moves=16, full_search_share=0.5, quick_simulations=4)
    a = _games(mcts, play)
    # the next search's position is one the last search grew (its own leg played): most searches keep visits
    assert np.mean(np.array(carried) > 0) > 0.5
    assert [g.moves for g in a] == [g.moves for g in _games(mcts, play)]
    for g in a:
        kept = g.policy_actions >= 0
        assert np.allclose(np.where(kept, g.policy_probs, 0).astype(np.float32).sum(1), 1.0, atol=1e-2)


@pytest.mark.parametrize("variant", ["american", "russian"])
def test_an_opening_share_starts_games_from_the_ballot_deck(variant):
    from train.alphazero.selfplay import opening_deck
    from train.arena.openings import american_three_move

    deck = opening_deck(get_rules(variant))
    assert len(deck) == len({b.fen() for b in deck}) == len(american_three_move())
    openings = {tuple(str(m) for m in b.move_stack) for b in deck}
    mcts = MCTSConfig(simulations=4)

    def starts(share):
        play = SelfPlayConfig(parallel_games=6, max_moves=8, opening_share=share, full_search_share=1.0)
        games = play_selfplay_games(SelfPlayJob(None, NET, variant, mcts, play, seed=3, num_games=12))
        return [any(tuple(g.moves[: len(o)]) == o for o in openings) for g in games], games

    from_deck, games = starts(1.0)
    assert all(from_deck) and len({tuple(g.moves[:3]) for g in games}) > 6
    assert all(g.move_numbers.min() >= 2 for g in games if g.positions)  # the opening's moves are not searched
    _, mixed = starts(0.5)
    from_start = [g.move_numbers.min() == 0 for g in mixed if g.positions]  # searched from the first move
    assert 0 < sum(from_start) < len(from_start)
    with pytest.raises(ValueError, match="opening_share"):
        SelfPlayConfig(opening_share=1.5)


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


def test_focus_plies_store_more_positions_inside_the_focus():
    mcts = MCTSConfig(simulations=4)
    play = SelfPlayConfig(parallel_games=4, max_moves=30, full_search_share=0.1, quick_simulations=2,
                          focus_plies=(10, 20), focus_full_search_share=1.0)  # fmt: skip
    games = _games(mcts, play, n=4)
    stored = np.concatenate([g.move_numbers for g in games])
    inside = (stored >= 10) & (stored < 20)
    # every searched leg inside the focus is stored; outside, about one in ten
    reached = sum(min(g.plies, 20) - min(g.plies, 10) for g in games)
    assert inside.sum() >= 0.6 * reached and inside.sum() > (~inside).sum()
    assert _games(mcts, play, n=4)[0].moves == games[0].moves  # still reproducible
    assert SelfPlayConfig(focus_plies=[10, 20]).focus_plies == (10, 20)  # as config.json gives it back
    for bad in ({"focus_plies": (20, 10)}, {"focus_plies": (-1, 5)}, {"focus_full_search_share": 0.0}):
        with pytest.raises(ValueError, match="focus"):
            SelfPlayConfig(**bad)


def test_self_play_searches_in_the_configured_number_format(monkeypatch):
    import train.alphazero.selfplay as selfplay

    asked = []
    real = selfplay.make_evaluator
    monkeypatch.setattr(selfplay, "make_evaluator", lambda *a, **kw: asked.append(kw["dtype"]) or real(*a, **kw))
    mcts = MCTSConfig(simulations=4)
    play = SelfPlayConfig(parallel_games=2, max_moves=12, inference_dtype="bfloat16")
    a, b = _games(mcts, play, n=2), _games(mcts, play, n=2)
    assert asked == ["bfloat16", "bfloat16"]
    assert [g.moves for g in a] == [g.moves for g in b] and all(g.positions > 0 for g in a)
    assert SelfPlayConfig().inference_dtype == "auto"
    with pytest.raises(ValueError, match="inference_dtype"):
        SelfPlayConfig(inference_dtype="float16")
    with pytest.raises(ValueError, match="num_games"):
        SelfPlayJob(None, NET, "american", mcts, play, seed=0, num_games=-1)


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


def test_a_capped_game_learns_its_last_search_value_with_cap_value_search():
    """``cap_value="search"``: every position of a game stopped at the cap learns the root value of the
    game's last search, from its own player's side and discounted by whole moves; a finished game learns
    its result as before."""
    mcts = MCTSConfig(simulations=6, discount=0.9)
    kw = dict(parallel_games=2, max_moves=10, full_search_share=1.0, carry_over=False)
    searched = _games(mcts, SelfPlayConfig(cap_value="search", **kw), n=2)
    roots = _games(mcts, SelfPlayConfig(search_value_weight=1.0, **kw), n=2)  # targets = each root value
    adjudicated = _games(mcts, SelfPlayConfig(**kw), n=2)
    assert [g.moves for g in searched] == [g.moves for g in roots] == [g.moves for g in adjudicated]
    for g, r, a in zip(searched, roots, adjudicated, strict=True):
        assert g.winner == a.winner and g.adjudicated == a.adjudicated  # the record still says how it was scored
        if g.plies < 10:  # ended by the rules
            np.testing.assert_array_equal(g.value_targets, a.value_targets)
            continue
        # every leg is a full search, so the last stored position is the game's last search
        last_value, last_colour, last_move = r.value_targets[-1], g.colours[-1], g.move_numbers[-1]
        sign = np.where(g.colours == last_colour, 1.0, -1.0)
        expected = sign * last_value * 0.9 ** (last_move - g.move_numbers.astype(np.float64))
        np.testing.assert_allclose(g.value_targets, expected, rtol=1e-5, atol=1e-7)
    assert any(g.plies == 10 and np.abs(g.value_targets).sum() > 0 for g in searched)


def test_cap_value_is_checked():
    with pytest.raises(ValueError, match="cap_value"):
        SelfPlayConfig(cap_value="result")


def _first_capture_between_legs(variant: str, seed: int = 0):
    """A random game's committed board and the first leg of a capture of two or more legs from it."""
    from checkers_env.game import STEP_CONTINUES, LegGames

    rng = np.random.default_rng(seed)
    games = LegGames(variant, 1, track_moves=True)
    for _ in range(200):
        games.reset(0)
        while not games.is_over(0):
            board = games.board(0)
            n = games.observe(0)
            leg = int(games.legal[0, rng.integers(n)])
            if games.step(0, leg).code == STEP_CONTINUES:
                return board, leg
    raise AssertionError("no multi-leg capture in 200 random games")


def test_carried_games_keep_the_batch_full_and_are_resumed_by_the_next_call():
    from train.alphazero.selfplay import ParkedGame

    mcts = MCTSConfig(simulations=4)
    play = SelfPlayConfig(parallel_games=4, max_moves=16, full_search_share=1.0, adjudicate_margin=0.0)
    carry: list = []
    first = play_selfplay_games(SelfPlayJob(None, NET, "american", mcts, play, seed=2, num_games=5), carry=carry)
    assert len(first) == 5  # exactly the games asked for count; the others wait in the carry
    parked = [c for c in carry if isinstance(c, ParkedGame)]
    assert parked and all(p.moves_played < 16 for p in parked) and any(p.moves_played > 0 for p in parked)
    for p in parked:
        assert len(p.board.move_stack) == p.moves_played
        assert len(p.record["obs"]) == len(p.record["colours"]) == len(p.record["ply"])
    second = play_selfplay_games(SelfPlayJob(None, NET, "american", mcts, play, seed=3, num_games=5), carry=carry)
    assert len(second) == 5
    prefixes = [[str(m) for m in p.board.move_stack] for p in parked]
    resumed = [g for g in second if any(g.moves[: len(pre)] == pre for pre in prefixes)]
    assert resumed  # the parked games came back first and were played to their end
    for g in second:
        assert g.value_targets.shape == g.colours.shape == (g.positions,)
        assert g.plies == len(g.moves) <= 16
    # without a carry nothing beyond the games asked for is started (the behaviour before carrying)
    alone = play_selfplay_games(SelfPlayJob(None, NET, "american", mcts, play, seed=2, num_games=5))
    assert len(alone) == 5


def test_a_game_parked_between_the_legs_of_a_capture_resumes_inside_it():
    from train.alphazero.selfplay import ParkedGame, new_game_record

    board, leg = _first_capture_between_legs("american")
    carry = [ParkedGame(board.copy(), board.ply, [leg], new_game_record())]
    play = SelfPlayConfig(parallel_games=1, max_moves=board.ply + 4, adjudicate_margin=0.0)
    games = play_selfplay_games(SelfPlayJob(None, NET, "american", MCTSConfig(simulations=3), play, seed=0,
                                            num_games=1), carry=carry)  # fmt: skip
    assert len(games) == 1
    history = [str(m) for m in board.move_stack]
    assert games[0].moves[: len(history)] == history
    from checkers_env.encoding import move_to_actions

    # the move played from the parked board is a capture of two or more legs that starts with the parked leg
    legs = {str(m): move_to_actions(m, 8, int(board.turn)) for m in board.legal_moves()}
    going_on = {m for m, actions in legs.items() if actions[0] == leg and len(actions) >= 2}
    assert games[0].moves[len(history)] in going_on


def test_the_carry_is_dropped_when_the_rules_change_or_carrying_is_off():
    from checkers_env.core import get_rules
    from train.alphazero.selfplay import GameCarry

    carry = GameCarry()
    on, off = SelfPlayConfig(), SelfPlayConfig(carry_over=False)
    games = carry.take(get_rules("american"), on)
    games.append("parked")
    assert carry.take(get_rules("american"), on) == ["parked"]
    assert carry.take(get_rules("russian"), on) == []
    carry.take(get_rules("russian"), on).append("parked")
    assert carry.take(get_rules("russian"), off) is None and carry.games == []


def test_late_starts_leave_late_positions_and_start_games_from_them():
    from train.alphazero.selfplay import LateStart, ParkedGame

    mcts = MCTSConfig(simulations=3)
    play = SelfPlayConfig(parallel_games=4, max_moves=20, full_search_share=1.0, adjudicate_margin=0.0,
                          late_start_share=0.5, late_start_after=10, late_start_moves=6, late_start_pool=5)  # fmt: skip
    carry: list = []
    first = play_selfplay_games(SelfPlayJob(None, NET, "american", mcts, play, seed=4, num_games=8), carry=carry)
    pool = [c for c in carry if isinstance(c, LateStart)]
    assert 0 < len(pool) <= 5
    for late in pool:
        assert 10 <= len(late.board.move_stack) < 20 and late.board.ply == len(late.board.move_stack)
    histories = [[str(m) for m in late.board.move_stack] for late in pool]
    later: list = list(first)
    for seed in (5, 6, 7):
        later += play_selfplay_games(SelfPlayJob(None, NET, "american", mcts, play, seed=seed, num_games=8),
                                     carry=carry)  # fmt: skip
        assert len([c for c in carry if isinstance(c, LateStart)]) <= 5  # the newest kept
        histories += [[str(m) for m in c.board.move_stack] for c in carry if isinstance(c, (LateStart, ParkedGame))]
    late_games = [g for g in later if g.late_start]
    assert late_games and len(late_games) < len(later)
    for g in late_games:
        # the game goes on from a late position of an earlier game: it searched only past it, and it was
        # stopped late_start_moves whole moves later at the latest
        assert 10 <= g.start_move < 20
        sources = histories + [other.moves for other in later if other is not g]
        assert any(g.moves[: g.start_move] == source[: g.start_move] for source in sources)
        assert len(g.moves) == g.plies <= g.start_move + 6
        assert g.positions == 0 or g.move_numbers.min() >= g.start_move
        assert g.value_targets.shape == g.colours.shape
    for parked in (c for c in carry if isinstance(c, ParkedGame) and "cap" in c.record):
        assert parked.moves_played < parked.record["cap"] <= parked.record["start_move"] + 6
    # off (the default), nothing is pooled and every game starts from the start position
    carry_off: list = []
    plain = SelfPlayConfig(parallel_games=4, max_moves=20, full_search_share=1.0, adjudicate_margin=0.0)
    for seed in (4, 5):
        games = play_selfplay_games(SelfPlayJob(None, NET, "american", mcts, plain, seed=seed, num_games=8),
                                    carry=carry_off)  # fmt: skip
        assert not any(g.late_start or g.start_move for g in games)
    assert not any(isinstance(c, LateStart) for c in carry_off)


def test_late_start_settings_are_checked():
    with pytest.raises(ValueError, match="late_start_share"):
        SelfPlayConfig(late_start_share=1.5)
    with pytest.raises(ValueError, match="carry_over"):
        SelfPlayConfig(late_start_share=0.5, carry_over=False)
    with pytest.raises(ValueError, match="below max_moves"):
        SelfPlayConfig(late_start_share=0.5, late_start_after=120, max_moves=120)
    with pytest.raises(ValueError, match="late_start_pool"):
        SelfPlayConfig(late_start_pool=0)


def test_sparring_partners_play_one_side_with_their_own_moves_and_only_the_network_side_is_stored():
    from agents.minimax import MinimaxAgent
    from checkers_env.core.board import Board
    from train.alphazero.replay import decode_record, encode_record

    mcts = MCTSConfig(simulations=3)
    play = SelfPlayConfig(parallel_games=4, max_moves=24, full_search_share=1.0, adjudicate_margin=1.0,
                          sparring=("minimax:1", "minimax:2"), sparring_share=1.0)  # fmt: skip
    games = play_selfplay_games(SelfPlayJob(None, NET, "american", mcts, play, seed=2, num_games=10))
    assert len(games) == 10
    assert {g.sparring for g in games} == {"minimax:1", "minimax:2"}
    assert {g.sparring_colour for g in games} == {0, 1}
    for g in games:
        # the network searched, and learnt, only the positions of its own side
        assert g.positions > 0 and set(g.colours.tolist()) == {1 - g.sparring_colour}
        assert g.network_score == (0.5 if g.winner < 0 else float(g.winner != g.sparring_colour))
        # every move of the partner's side is one its search rates best (ties broken by its generator)
        judge = MinimaxAgent(depth=int(g.sparring.split(":")[1]), seed=0)
        board = Board("american")
        for text in g.moves:
            if int(board.turn) == g.sparring_colour:
                best, _ = judge.search(board)
                assert text in {str(m) for m in best}
            board.push(text)
        back = decode_record(encode_record(g))
        assert (back.sparring, back.sparring_colour, back.network_score) == (g.sparring, g.sparring_colour,
                                                                             g.network_score)  # fmt: skip


def test_without_a_sparring_share_every_game_is_self_play():
    mcts = MCTSConfig(simulations=3)
    play = SelfPlayConfig(parallel_games=4, max_moves=12, sparring=("minimax:1",), sparring_share=0.0)
    games = play_selfplay_games(SelfPlayJob(None, NET, "american", mcts, play, seed=2, num_games=4))
    plain = play_selfplay_games(SelfPlayJob(None, NET, "american", mcts, SelfPlayConfig(parallel_games=4,
                                            max_moves=12), seed=2, num_games=4))  # fmt: skip
    assert [g.moves for g in games] == [g.moves for g in plain]  # the partner list alone changes nothing
    assert all(g.sparring == "" and g.sparring_colour == -1 and g.network_score is None for g in games)


def test_sparring_settings_are_checked():
    with pytest.raises(ValueError, match="sparring_share must be in"):
        SelfPlayConfig(sparring=("minimax:1",), sparring_share=1.5)
    with pytest.raises(ValueError, match="sparring_share needs sparring"):
        SelfPlayConfig(sparring_share=0.5)
    assert SelfPlayConfig(sparring=["minimax:3"], sparring_share=0.5).sparring == ("minimax:3",)
