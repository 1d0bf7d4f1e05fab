"""The PettingZoo AEC env: conformance, multi-leg turns, rewards, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, render_test, seed_test

from checkers_env.aec import LegSpace, env, raw_env
from checkers_env.core import WHITE, Board, IllegalMoveError, Termination
from checkers_env.encoding import move_to_actions

from .conftest import CONFIG_IDS, CONFIGS, random_positions

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize(("variant", "overrides"), CONFIGS, ids=CONFIG_IDS)
def test_api(variant, overrides):
    api_test(env(variant, **overrides), num_cycles=300)


@pytest.mark.parametrize(("variant", "overrides"), CONFIGS, ids=CONFIG_IDS)
def test_seed(variant, overrides):
    seed_test(lambda **kw: env(variant, **overrides, **kw), num_cycles=100)


@pytest.mark.parametrize(("variant", "overrides"), CONFIGS, ids=CONFIG_IDS)
def test_render(variant, overrides):
    pytest.importorskip("checkers_env.render.text")
    pytest.importorskip("checkers_env.render.image")
    pytest.importorskip("checkers_env.render.window")
    pytest.importorskip("pygame")
    pytest.importorskip("PIL")
    render_test(lambda **kw: env(variant, **overrides, **kw))


def test_leg_space_samples_as_gymnasium_discrete_does():
    """Same accepted masks, same draws from the same seed, ``start`` when nothing is legal."""
    rng = np.random.default_rng(0)
    for n in (896, 1800):
        ours, theirs = LegSpace(n, seed=7), spaces.Discrete(n, seed=7)
        for _ in range(500):
            mask = (rng.random(n) < rng.random() * 0.05).astype(np.int8)
            assert ours.sample(mask) == theirs.sample(mask)
        assert ours.sample(np.zeros(n, dtype=np.int8)) == 0
        assert ours.sample() == theirs.sample()
    space = LegSpace(896, seed=0)
    bad = np.zeros(896, dtype=np.int8)
    bad[3] = 2
    for mask in (bad, np.zeros(896, dtype=np.int64), np.zeros(895, dtype=np.int8), [0] * 896):
        with pytest.raises(AssertionError):
            space.sample(mask)


def test_player_0_moves_first():
    for variant, colour in [("american", 1), ("pool", 1), ("russian", 0), ("international", 0)]:
        e = raw_env(variant)
        e.reset()
        assert e.agent_selection == "player_0"
        assert int(e.board.turn) == colour


def test_spaces_and_shapes():
    for variant, size, n in [("american", 8, 896), ("international", 10, 1800)]:
        e = raw_env(variant)
        e.reset()
        obs = e.observe("player_0")
        assert obs["observation"].shape == (8, size, size) and obs["observation"].dtype == np.float32
        assert obs["action_mask"].shape == (n,) and obs["action_mask"].dtype == np.int8
        assert e.action_space("player_1").n == n
        assert not e.observe("player_1")["action_mask"].any()
        # both agents see their own men at the bottom of their planes
        for agent in e.agents:
            planes = e.observe(agent)["observation"]
            assert planes[0, -1].sum() == size // 2 and planes[2, 0].sum() == size // 2


def _multi_capture_fen(variant):
    for board in random_positions(variant, 3000, seed=3):
        if any(len(m.path) > 1 for m in board.legal_moves()):
            return board
    raise AssertionError("no multi-capture found")


@pytest.mark.parametrize("variant", ["american", "russian", "international"])
def test_multi_capture_keeps_agent_selection(variant):
    board = _multi_capture_fen(variant)
    move = next(m for m in board.legal_moves() if len(m.path) > 1)
    actions = move_to_actions(move, board.rules.board_size, int(board.turn))
    e = raw_env(variant)
    e.reset(options={"fen": board.fen()})
    mover = e.agent_selection
    for i, action in enumerate(actions):
        assert e.agent_selection == mover
        obs = e.observe(mover)
        assert obs["action_mask"][action] == 1
        if i > 0:
            # the moving piece is marked, and what it jumped so far
            assert obs["observation"][4].sum() == 1
            assert obs["observation"][5].sum() == i
        e.step(action)
    assert e.agent_selection != mover
    expected = board.copy()
    expected.push(move)
    assert e.board == expected
    assert e.last_move == move


def test_win_gives_plus_and_minus_one():
    e = raw_env("american")
    # Black to move; its only man is captured by the only legal move... White's turn then has nothing to fear.
    e.reset(options={"fen": "W:W18:B14"})  # White jumps 18x9 and Black has no pieces left
    (action,) = e.legal_actions()
    winner = e.agent_selection
    e.step(action)
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards[winner] == 1 and sum(e.rewards.values()) == 0
    assert e._cumulative_rewards[winner] == 1


def test_draw_rule_is_a_termination_and_max_moves_a_truncation():
    e = raw_env("american", draw_plies=2)
    e.reset(options={"fen": "B:WK32:BK1"})
    for _ in range(2):
        e.step(e.legal_actions()[0])
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert set(e.rewards.values()) == {0}
    e = raw_env("american", max_moves=3)
    e.reset()
    for _ in range(3):
        e.step(e.legal_actions()[0])
    assert all(e.truncations.values()) and not any(e.terminations.values())


def test_repetition_draw():
    e = raw_env("american", repetition_draw=3)
    e.reset(options={"fen": "B:WK32:BK1"})
    plies = 0
    while not any(e.terminations.values()):
        board = e.board
        # shuffle both kings back and forth between two squares
        legal = e.legal_actions()
        e.step(legal[0] if board.ply % 4 < 2 else legal[-1])
        plies += 1
        assert plies < 40
    assert set(e.rewards.values()) == {0}


def test_raw_env_rejects_illegal_actions_without_changing_state():
    e = raw_env("american")
    e.reset()
    before = e.board.fen()
    legal = e.legal_actions()
    illegal = next(a for a in range(896) if a not in legal)
    for bad in (illegal, -1, 896, 10**6, 2**70, -(2**70), np.uint64(2**64 - 1)):
        with pytest.raises(IllegalMoveError, match=r"legal actions: \["):
            e.step(bad)
    for bad in (1.5, "3", None, True, np.float32(2)):
        with pytest.raises(ValueError):
            e.step(bad)
    assert e.board.fen() == before and e.legal_actions() == legal and e.agent_selection == "player_0"
    e.step(np.int64(legal[0]))
    assert e.agent_selection == "player_1"


def test_wrapped_env_illegal_action_loses():
    e = env("american")
    e.reset()
    legal = e.unwrapped.legal_actions()
    illegal = next(a for a in range(896) if a not in legal)
    e.step(illegal)
    assert e.rewards["player_0"] == -1 and e.rewards["player_1"] == 0
    assert all(e.terminations.values())
    with pytest.raises(AssertionError):
        f = env("american")
        f.reset()
        f.step(5000)


def test_step_after_game_over_follows_pettingzoo():
    e = raw_env("american")
    e.reset(options={"fen": "W:W18:B14"})
    e.step(e.legal_actions()[0])
    agent = e.agent_selection
    with pytest.raises(ValueError):
        e.step(3)
    e.step(None)
    assert agent not in e.agents
    e.step(None)
    assert e.agents == []


def test_reset_to_a_finished_position_reports_the_game_over():
    e = raw_env("american")
    e.reset(options={"fen": "B:W18:B"})  # Black to move has no piece
    assert all(e.terminations.values()) and set(e.rewards.values()) == {0}
    outcome = e.infos["player_0"]["outcome"]
    assert outcome.termination == Termination.NO_LEGAL_MOVES and outcome.winner == WHITE
    assert e.legal_actions() == [] and not e.observe(e.agent_selection)["action_mask"].any()
    # the draw counter has run out: the game is drawn at reset, not started live
    e.reset(options={"fen": "B:W18:B5:H80"})
    assert all(e.terminations.values())
    assert e.infos["player_0"]["outcome"].termination == Termination.DRAW_RULE
    e.step(None)  # the dead steps of a finished game work as usual
    e.step(None)
    assert e.agents == []
    with pytest.raises(IllegalMoveError, match="call reset"):
        e.step(0)


def test_reset_rejects_a_bad_fen():
    e = raw_env("american")
    with pytest.raises(ValueError):
        e.reset(options={"fen": "not a fen"})


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="unknown variant"):
        raw_env("chess")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env("american", render_mode="vga")
    with pytest.raises(ValueError, match="max_moves"):
        raw_env("american", max_moves=0)


def test_render_ansi_marks_progress():
    pytest.importorskip("checkers_env.render.text")
    e = raw_env("american", render_mode="ansi")
    e.reset()
    text = e.render()
    assert isinstance(text, str) and text
    e.step(e.legal_actions()[0])
    assert e.render() != text


def test_board_property_is_a_copy():
    e = raw_env("russian")
    e.reset()
    b = e.board
    b.push(b.legal_moves()[0])
    assert e.board == Board("russian")


def test_registered_ids_make_the_wrapped_env():
    pettingzoo = pytest.importorskip("pettingzoo")
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry")
    from checkers_env.aec import registered_ids

    assert "checkers/international-v0" in registered_ids and len(registered_ids) == 8
    e = pettingzoo.make("aec", "checkers/international-v0")
    e.reset()
    assert e.unwrapped.rules.name == "international"
    assert e.action_space("player_0").n == 1800


@pytest.mark.parametrize("variant", ["american", "russian", "international"])
def test_piece_planes_match_the_board(variant):
    """Planes 0-3 are own men, own kings, opponent men, opponent kings in the mover's frame."""
    import random

    from checkers_env.core import Board
    from checkers_env.core.geometry import geometry
    from checkers_env.observation import planes_of

    rng = random.Random(5)
    board = Board(variant)
    g = geometry(board.rules.board_size)
    for _ in range(120):
        if board.outcome() is not None:
            board = Board(variant)
        me = board.turn
        planes = planes_of(board)
        expected = np.zeros_like(planes[:4])
        for plane, (colour, kings) in enumerate([(me, False), (me, True), (me.other, False), (me.other, True)]):
            for i in board.pieces(colour, kings=kings):
                j = i if me == 0 else g.squares - 1 - i
                expected[plane, g.row[j], g.file[j]] = 1.0
        assert np.array_equal(planes[:4], expected)
        assert not planes[4:6].any()
        board.push(rng.choice(board.legal_moves()))


def test_material_lead_counts_the_observers_men_and_kings_and_not_the_jumped():
    from checkers_env.core import Board
    from checkers_env.observation import KING_MATERIAL, material_lead, planes_of

    board = Board("international", fen="W:WK46,47,48:B1,2,K3,K4")
    white, black = planes_of(board, 0), planes_of(board, 1)
    assert material_lead(white) == pytest.approx(2 + KING_MATERIAL - 2 - 2 * KING_MATERIAL)
    np.testing.assert_allclose(material_lead(np.stack([white, black])), [-1.5, 1.5])
    # a man jumped in a capture in progress (plane 5) already counts as gone
    white[5] = white[2] * (np.cumsum(white[2]).reshape(white[2].shape) == 1)
    assert material_lead(white) == pytest.approx(-0.5)
    with pytest.raises(ValueError, match="planes must be"):
        material_lead(np.zeros((3, 10, 10), np.float32))
