"""Observation planes 8 and 9: the pieces each side could take with a first jump.

The oracle is the move generator: with every route of every legal capture
(``Board._routes``), the pieces jumped by the first leg of each route are the
jump targets of the side to move, wherever the variant lets a player choose
among captures freely. Where precedence rules (most pieces, king first) prune
the captures, the planes keep every first jump and so hold at least those.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from checkers_env.aec import raw_env
from checkers_env.core import Board
from checkers_env.core.geometry import geometry
from checkers_env.encoding import action_to_leg
from checkers_env.observation import PLANE_NAMES, planes_of

OWN_TARGETS = PLANE_NAMES.index("opponent pieces the observer can jump")
THEIR_TARGETS = PLANE_NAMES.index("observer pieces the opponent can jump")
FREE_CHOICE = ["american", "russian", "pool"]
PRECEDENCE = ["international", "brazilian", "spanish", "italian", "czech"]


def _jumped(board: Board, start: int, landing: int) -> int:
    """The opponent's piece (of the side to move) on the diagonal strictly between ``start`` and ``landing``.
    In a capture in progress ``board`` shows the position before the move and ``start`` is where the
    piece stands now; pieces jumped earlier cannot lie on the leg's line (they may not be jumped twice)."""
    g = geometry(board.rules.board_size)
    r0, f0, r1, f1 = g.row[start], g.file[start], g.row[landing], g.file[landing]
    dr, df = np.sign(r1 - r0), np.sign(f1 - f0)
    theirs = set(board.pieces(board.turn.other))
    between = [g.index_at(int(r0 + k * dr), int(f0 + k * df)) for k in range(1, abs(int(r1 - r0)))]
    (piece,) = [i for i in between if i in theirs]
    return piece


def _first_jumps(board: Board) -> set[int]:
    """Squares of the pieces the side to move takes first in some legal capture route."""
    out = set()
    for move in board.legal_moves():
        if not move.is_capture:
            continue
        for path in board._routes().get(move.key(), {move.path}):
            out.add(_jumped(board, move.start, path[0]))
    return out


def _cells(board: Board, squares: set[int], observer: int) -> np.ndarray:
    """A plane with ones on ``squares`` seen from ``observer``'s side."""
    g = geometry(board.rules.board_size)
    plane = np.zeros((board.rules.board_size, board.rules.board_size), dtype=np.float32)
    for i in squares:
        j = i if observer == 0 else g.squares - 1 - i
        plane[g.row[j], g.file[j]] = 1.0
    return plane


def _other_side_to_move(board: Board) -> Board:
    fen = board.fen()
    return Board(board.rules, fen=("B" if fen[0] == "W" else "W") + fen[1:])


def _positions(variant: str, count: int, seed: int):
    """Positions along random games (restarting when a game ends), captures and kings included."""
    rng = random.Random(seed)
    board = Board(variant)
    for _ in range(count):
        if board.outcome() is not None:
            board = Board(variant)
        yield board
        board.push(rng.choice(board.legal_moves()))


@pytest.mark.parametrize("variant", FREE_CHOICE)
def test_jump_targets_are_the_pieces_the_first_legs_of_legal_captures_take(variant):
    """Where captures are chosen freely, plane 8 is exactly what the mover's first jumps take, and plane 9
    exactly what the opponent's would take were it to move."""
    seen_kings = seen_targets = 0
    for board in _positions(variant, 300, seed=3):
        me = int(board.turn)
        planes = planes_of(board)
        assert np.array_equal(planes[OWN_TARGETS], _cells(board, _first_jumps(board), me))
        flipped = _other_side_to_move(board)
        assert np.array_equal(planes[THEIR_TARGETS], _cells(flipped, _first_jumps(flipped), me))
        seen_targets += int(planes[OWN_TARGETS].any())
        seen_kings += int(planes[1].any() or planes[3].any())
    assert seen_targets > 30 and seen_kings > 30  # the walk reached captures and kings


@pytest.mark.parametrize("variant", PRECEDENCE)
def test_jump_targets_hold_every_first_jump_where_precedence_prunes_captures(variant):
    """Plane 8 holds the first jump of every legal capture, and is empty exactly when the mover has none."""
    for board in _positions(variant, 200, seed=4):
        planes = planes_of(board)
        first = _cells(board, _first_jumps(board), int(board.turn))
        assert np.all(planes[OWN_TARGETS] >= first)
        assert planes[OWN_TARGETS].any() == any(m.is_capture for m in board.legal_moves())


def test_men_take_backwards_only_where_the_variant_lets_them():
    """A White man on 18 and a Black man on 22, diagonally behind it, with 25 and 15 free: each takes the
    other backwards in russian; in american, whose men capture forward only, neither threatens."""
    for variant, takes in (("russian", True), ("american", False)):
        planes = planes_of(Board(variant, fen="W:W18:B22"))
        assert planes[OWN_TARGETS].any() == takes
        assert planes[THEIR_TARGETS].any() == takes


def test_a_flying_king_threatens_down_its_whole_diagonal_and_not_past_a_blocker():
    """International: a White king on 46 takes a Black man on 28, four squares up its diagonal with 23
    free beyond; a White man on 37 in between shields it. An american king (short) does not reach three
    squares away."""
    board = Board("international", fen="W:WK46:B28")
    assert np.array_equal(planes_of(board)[OWN_TARGETS], _cells(board, {27}, 0))  # square 28 is index 27
    assert not planes_of(Board("international", fen="W:WK46,37:B28"))[OWN_TARGETS].any()
    assert not planes_of(Board("american", fen="W:WK29:B18"))[OWN_TARGETS].any()


def test_italian_men_do_not_threaten_kings():
    """Italian men may not take kings: a White man next to a Black king threatens nothing, next to a Black
    man it does."""
    on_king = planes_of(Board("italian", fen="W:W22:BK18"))
    on_man = planes_of(Board("italian", fen="W:W22:B18"))
    assert not on_king[OWN_TARGETS].any() and on_man[OWN_TARGETS].any()


def test_in_a_capture_in_progress_the_jumped_pieces_are_not_targets():
    """Mid-capture (international, through the leg-level env): the pieces jumped so far (plane 5) are not
    on plane 8, and every piece a legal next leg jumps is."""
    rng = random.Random(7)
    env = raw_env("international")
    checked = 0
    for game in range(40):
        env.reset(seed=game)
        while not all(env.terminations.values()) and not all(env.truncations.values()) and checked < 25:
            agent = env.agent_selection
            seen = env.observe(agent)
            if env.legs_taken:
                planes = seen["observation"]
                assert not (planes[OWN_TARGETS] * planes[5]).any()
                turn = int(env.board.turn)
                for action in np.flatnonzero(seen["action_mask"]):
                    leg = action_to_leg(int(action), 10, turn)
                    board = env.board
                    jumped = _jumped(board, leg.start, leg.end)
                    assert _cells(board, {jumped}, turn)[planes[OWN_TARGETS] == 0].sum() == 0
                checked += 1
            env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
    assert checked == 25
