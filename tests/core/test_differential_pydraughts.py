"""Differential test of the move generator against pydraughts 0.6.7.

For positions from seeded random games (played to the end, so they include
kings, endgames and long multi-captures) the set of positions reached by the
legal moves must be the same in both libraries. Sets of positions, not move
counts or move text, are compared: pydraughts lists a flying king's capture
once per intermediate landing square and writes russian/brazilian moves
numerically (docs/RULES.md, "Reference libraries"). Both libraries' FENs are read with our
``parse_fen`` into sets of squares, so spelling differences do not matter.

Our FEN must also be read back by pydraughts as the same position.
"""

from __future__ import annotations

import random
import time

import pytest

from checkers_env.core import Board, get_rules
from checkers_env.core.notation import parse_fen, square_name

draughts = pytest.importorskip("draughts", reason="pydraughts is the reference generator")

# (our variant, pydraughts variant)
VARIANTS = [
    ("american", "english"),
    ("russian", "russian"),
    ("brazilian", "brazilian"),
    ("italian", "italian"),
    ("international", "standard"),
]

GAME_POSITIONS = 1000
"""Positions from random games per variant in the default run (pydraughts is slow)."""
PLACEMENTS = 100
"""Random crowded positions per 8x8 variant in the default run (half that on 10x10, where pydraughts is slower)."""
SLOW_GAME_POSITIONS = 2500
SLOW_PLACEMENTS = 500
"""Per seed (two seeds) in the slow run."""
MAX_GAME_PLIES = 250
"""Random games are cut here: king endgames can shuffle for ever (neither
library's draw rule is applied, so positions with a high counter are covered)."""


def _canonical(rules, fen: str) -> tuple:
    p = parse_fen(rules, fen)
    return (p.turn, p.white_men, p.white_kings, p.black_men, p.black_kings)


def _random_game_positions(their_variant: str, count: int, seed: int):
    """Yield ``(fen, successor FENs, pydraughts moves)`` for every distinct position
    of seeded random pydraughts games until ``count`` positions are produced."""
    rng = random.Random(seed)
    seen: set[str] = set()  # each distinct position once (the start, shuffling kings)
    while len(seen) < count:
        board = draughts.Board(variant=their_variant)
        for _ in range(MAX_GAME_PLIES):
            moves = board.legal_moves()
            if board.fen not in seen:
                seen.add(board.fen)
                yield board.fen, _successors(board, moves), moves
            if not moves or len(seen) >= count:
                break
            board.push(rng.choice(moves))


def _random_placements(our_variant: str, their_variant: str, count: int, seed: int):
    """Like :func:`_random_game_positions`, for random positions crowded with
    men and kings: they hold the long and branching multi-captures that
    random games reach rarely. Men are never on their own promotion row."""
    rules = get_rules(our_variant)
    rng = random.Random(seed)
    n = rules.squares
    row = rules.squares_per_row
    for _ in range(count):
        squares = rng.sample(range(n), rng.randint(n // 4, n // 2))
        pieces: dict[str, list[int]] = {"W": [], "B": []}
        for index in squares:
            # A side has at most the men it starts with.
            colour = rng.choice([c for c in "WB" if len(pieces[c]) < rules.men_per_side])
            # White men promote on the top row (indices 0..row-1), Black men on the bottom row.
            on_own_promotion_row = index < row if colour == "W" else index >= n - row
            king = on_own_promotion_row or rng.random() < 0.3
            pieces[colour].append(("K" if king else "") + square_name(rules, index, "algebraic"))
        if not pieces["W"] or not pieces["B"]:
            continue
        ours = Board(our_variant, fen=f"{rng.choice('WB')}:W{','.join(pieces['W'])}:B{','.join(pieces['B'])}")
        board = draughts.Board(variant=their_variant, fen=ours.fen())
        moves = board.legal_moves()
        yield board.fen, _successors(board, moves), moves


def _successors(board, moves) -> list[str]:
    out = []
    for move in moves:
        board.push(move)
        out.append(board.fen)
        board.pop()
    return out


def _compare(our_variant: str, their_variant: str, positions) -> dict:
    """Compare the ``(fen, successors, moves)`` of ``positions``; return coverage statistics, fail on any difference."""
    rules = get_rules(our_variant)
    mismatches = []
    stats = {"positions": 0, "with_kings": 0, "captures": 0, "captures_3_or_more": 0, "king_captures_2_or_more": 0}
    for fen, successors, their_moves in positions:
        ours = Board(our_variant, fen=fen)
        theirs = {_canonical(rules, f) for f in successors}
        reached = set()
        for move in ours.legal_moves():
            ours.push(move)
            reached.add(_canonical(rules, ours.fen()))
            ours.pop()
        if reached != theirs:
            only_ours = sorted(str(m) for m in ours.legal_moves() if _after(ours, m, rules) not in theirs)
            only_theirs = sorted(
                m.pdn_move for m, f in zip(their_moves, successors) if _canonical(rules, f) not in reached
            )
            mismatches.append(f"{fen}: only ours {only_ours}, only pydraughts {only_theirs}")
        # Our FEN must mean the same position to pydraughts.
        back = draughts.Board(variant=their_variant, fen=ours.fen()).fen
        if _canonical(rules, back) != _canonical(rules, fen):
            mismatches.append(f"pydraughts reads our FEN {ours.fen()!r} as {back!r} (position {fen})")
        stats["positions"] += 1
        stats["with_kings"] += bool(ours.pieces(0, kings=True) or ours.pieces(1, kings=True))
        moves = ours.legal_moves()
        longest = max((len(m.captures) for m in moves), default=0)
        stats["captures"] += longest > 0
        stats["captures_3_or_more"] += longest >= 3
        stats["king_captures_2_or_more"] += any(len(m.captures) >= 2 and ours.piece_at(m.start)[1] for m in moves)
    assert not mismatches, f"{len(mismatches)} {our_variant} positions differ from pydraughts:\n" + "\n".join(
        mismatches[:10]
    )
    return stats


def _after(board: Board, move, rules) -> tuple:
    board.push(move)
    try:
        return _canonical(rules, board.fen())
    finally:
        board.pop()


@pytest.mark.parametrize(("our_variant", "their_variant"), VARIANTS, ids=[v for v, _ in VARIANTS])
def test_random_games_reach_the_same_positions_as_pydraughts(our_variant, their_variant):
    start = time.perf_counter()
    stats = _compare(our_variant, their_variant, _random_game_positions(their_variant, GAME_POSITIONS, seed=2024))
    print(f"{our_variant} random games: {stats} in {time.perf_counter() - start:.1f}s")
    # Games are played to the end so that endgames with kings are covered.
    assert stats["positions"] == GAME_POSITIONS
    assert stats["with_kings"] >= GAME_POSITIONS // 10, stats
    assert stats["captures"] >= GAME_POSITIONS // 10, stats


@pytest.mark.parametrize(("our_variant", "their_variant"), VARIANTS, ids=[v for v, _ in VARIANTS])
def test_crowded_positions_reach_the_same_positions_as_pydraughts(our_variant, their_variant):
    count = PLACEMENTS // 2 if get_rules(our_variant).board_size == 10 else PLACEMENTS
    start = time.perf_counter()
    stats = _compare(our_variant, their_variant, _random_placements(our_variant, their_variant, count, seed=7))
    print(f"{our_variant} random placements: {stats} in {time.perf_counter() - start:.1f}s")
    # These positions exist to exercise long captures, by men and by kings.
    assert stats["positions"] >= count * 9 // 10
    assert stats["captures_3_or_more"] >= max(1, count // 100), stats
    assert stats["king_captures_2_or_more"] >= count // 20, stats


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("our_variant", "their_variant"), VARIANTS, ids=[v for v, _ in VARIANTS])
def test_many_more_positions_agree_with_pydraughts(our_variant, their_variant, seed):
    stats = _compare(our_variant, their_variant, _random_game_positions(their_variant, SLOW_GAME_POSITIONS, seed))
    assert stats["positions"] == SLOW_GAME_POSITIONS
    stats = _compare(our_variant, their_variant, _random_placements(our_variant, their_variant, SLOW_PLACEMENTS, seed))
    assert stats["captures_3_or_more"] >= SLOW_PLACEMENTS // 100, stats


def test_start_positions_agree():
    for our_variant, their_variant in VARIANTS:
        rules = get_rules(our_variant)
        theirs = draughts.Board(variant=their_variant).fen
        assert _canonical(rules, theirs) == _canonical(rules, Board(our_variant).fen()), our_variant
