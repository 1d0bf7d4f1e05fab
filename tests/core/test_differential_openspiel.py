"""Differential test of american checkers against OpenSpiel's ``checkers``.

OpenSpiel plays one jump per action, the same player moving again inside a
multi-jump, so a whole move is a walk down its tree until the player changes
(with ``child()``: its ``undo_action`` does not restore the multi-jump state,
docs/RULES.md, "Reference libraries"). Its board is printed with rank 8 on top and a1
dark; its first player ``o`` starts on ranks 1-3. In our frame the side that
moves first in american (Black) starts on the top ranks, so its board is
ours turned by 180 degrees: its (file f, rank r) is our (7 - f, 7 - r), its
``o``/``8`` (man/king) are our Black, ``+``/``*`` our White.

OpenSpiel ends the game after 40 plies without a capture; positions after
that are not compared.
"""

from __future__ import annotations

import random

import pytest

from checkers_env.core import Board, get_rules
from checkers_env.core.notation import parse_fen

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is a reference generator for american checkers")

RULES = get_rules("american")
DEFAULT_POSITIONS = 2000
SLOW_POSITIONS = 20000

_PIECES = {"o": ("B", ""), "8": ("B", "K"), "+": ("W", ""), "*": ("W", "K")}


def spiel_fen(state, turn: str) -> str:
    """Our FEN (algebraic squares) of an OpenSpiel checkers state; ``turn`` is ``"W"`` or ``"B"``."""
    lines = str(state).splitlines()[:8]
    pieces: dict[str, list[str]] = {"W": [], "B": []}
    for line in lines:
        rank = int(line[0])
        for f, char in enumerate(line[1:9]):
            if char == ".":
                continue
            colour, king = _PIECES[char]
            ours = "abcdefgh"[7 - f] + str(9 - rank)
            pieces[colour].append(king + ours)
    return f"{turn}:W{','.join(pieces['W'])}:B{','.join(pieces['B'])}"


def _turn(player: int) -> str:
    # OpenSpiel's player 0 moves first: Black in american.
    return "B" if player == 0 else "W"


def _canonical(fen: str) -> tuple:
    p = parse_fen(RULES, fen)
    return (p.turn, p.white_men, p.white_kings, p.black_men, p.black_kings)


def spiel_successors(state) -> set[tuple]:
    """Positions reached by OpenSpiel's whole moves from ``state`` (canonical form)."""
    mover = state.current_player()
    out = set()
    stack = [state]
    while stack:
        s = stack.pop()
        for action in s.legal_actions():
            child = s.child(action)
            if not child.is_terminal() and child.current_player() == mover:
                stack.append(child)  # inside a multi-jump
            else:
                out.add(_canonical(spiel_fen(child, _turn(1 - mover))))
    return out


def _our_successors(board: Board) -> set[tuple]:
    out = set()
    for move in board.legal_moves():
        board.push(move)
        out.add(_canonical(board.fen()))
        board.pop()
    return out


def _random_game_states(count: int, seed: int):
    """Yield OpenSpiel states at the start of each whole move of seeded random games."""
    game = pyspiel.load_game("checkers")
    rng = random.Random(seed)
    produced = 0
    while produced < count:
        state = game.new_initial_state()
        while not state.is_terminal() and produced < count:
            yield state
            produced += 1
            mover = state.current_player()
            while not state.is_terminal() and state.current_player() == mover:
                state = state.child(rng.choice(state.legal_actions()))


def _compare(count: int, seed: int) -> dict:
    mismatches = []
    stats = {"positions": 0, "with_kings": 0, "multi_jumps": 0}
    for state in _random_game_states(count, seed):
        fen = spiel_fen(state, _turn(state.current_player()))
        board = Board("american", fen=fen)
        ours, theirs = _our_successors(board), spiel_successors(state)
        if ours != theirs:
            only_ours = [str(m) for m in board.legal_moves() if _after(board, m) not in theirs]
            mismatches.append(f"{board.fen()}: only ours {only_ours}, {len(theirs - ours)} only in OpenSpiel")
        stats["positions"] += 1
        stats["with_kings"] += bool(board.pieces(0, kings=True) or board.pieces(1, kings=True))
        stats["multi_jumps"] += any(len(m.captures) >= 2 for m in board.legal_moves())
    assert not mismatches, f"{len(mismatches)} positions differ from OpenSpiel:\n" + "\n".join(mismatches[:10])
    return stats


def _after(board: Board, move) -> tuple:
    board.push(move)
    try:
        return _canonical(board.fen())
    finally:
        board.pop()


def test_orientation_start_position():
    state = pyspiel.load_game("checkers").new_initial_state()
    assert _canonical(spiel_fen(state, _turn(state.current_player()))) == _canonical(Board("american").fen())


def test_orientation_first_move():
    # OpenSpiel's a3b4 is the first player's man stepping from its a3 to b4,
    # which in our frame is Black's h6-g5, square 12-16.
    state = pyspiel.load_game("checkers").new_initial_state()
    action = next(a for a in state.legal_actions() if state.action_to_string(a) == "a3b4")
    board = Board("american")
    board.push("12-16")
    assert _canonical(spiel_fen(state.child(action), "W")) == _canonical(board.fen())


def test_random_games_reach_the_same_positions_as_openspiel():
    stats = _compare(DEFAULT_POSITIONS, seed=11)
    assert stats["positions"] == DEFAULT_POSITIONS
    assert stats["with_kings"] >= DEFAULT_POSITIONS // 10, stats
    assert stats["multi_jumps"] >= 5, stats


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_many_random_games_reach_the_same_positions_as_openspiel(seed):
    stats = _compare(SLOW_POSITIONS // 2, seed)
    assert stats["multi_jumps"] >= 50, stats
