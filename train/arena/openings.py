"""Balloted openings for arena matches.

Engines that search deterministically would replay the same game over and
over from the start position, so every pair of arena games starts from a
balloted opening, played once with each colour:

* american: the published three-move ballot of the American Checker
  Federation (``data/american_3move.json``, with its source);
* every other variant: seeded random openings of two or three plies, all
  different, none of which ends the game.

The opening moves are played on the board (and so appear in each game's PDN).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from checkers_env.core import Board, Rules, get_rules

__all__ = ["Opening", "american_three_move", "random_openings", "ballot", "paired_openings"]

_DATA = Path(__file__).with_name("data") / "american_3move.json"


@dataclass(frozen=True)
class Opening:
    """A named sequence of moves from the start position."""

    name: str
    """Ballot name (``"ACF 3-move #12"``) or ``"random 1"``..."""
    moves: tuple[str, ...]
    """Move texts in the variant's notation."""

    def board(self, variant: str | Rules, **rule_overrides) -> Board:
        """A board with the opening played (raises ``IllegalMoveError`` if a move is illegal)."""
        board = Board(variant, **rule_overrides)
        for move in self.moves:
            board.push(move)
        return board


@lru_cache(maxsize=1)
def american_three_move() -> tuple[Opening, ...]:
    """The ACF three-move deck (157 openings, see the data file for the source)."""
    doc = json.loads(_DATA.read_text())
    return tuple(Opening(f"ACF 3-move #{o['number']}", tuple(o["moves"])) for o in doc["openings"])


def random_openings(variant: str | Rules, count: int, seed: int, plies: tuple[int, ...] = (2, 3)) -> list[Opening]:
    """``count`` distinct random openings of the given lengths, reproducible for a seed.

    Openings that leave the side to move without a legal move, or that
    repeat a position already drawn, are skipped. Fewer than ``count`` come
    back only when the variant has fewer distinct openings of these lengths.
    """
    rules = get_rules(variant) if isinstance(variant, str) else variant
    rng = np.random.default_rng(seed)
    seen: set[str] = set()
    out: list[Opening] = []
    attempts = 0
    while len(out) < count and attempts < 50 * count + 100:
        attempts += 1
        board = Board(rules)
        length = int(plies[int(rng.integers(len(plies)))])
        texts = []
        for _ in range(length):
            moves = board.legal_moves()
            if not moves:
                break
            move = moves[int(rng.integers(len(moves)))]
            texts.append(str(move))
            board.push(move)
        if board.outcome() is not None or len(texts) < length:
            continue
        key = board.fen()
        if key in seen:
            continue
        seen.add(key)
        out.append(Opening(f"random {len(out) + 1}", tuple(texts)))
    return out


def ballot(variant: str | Rules, pairs: int, seed: int) -> list[Opening]:
    """One opening per pair of games: the shuffled ACF deck for american (cycled if more
    pairs than openings), random openings elsewhere."""
    rules = get_rules(variant) if isinstance(variant, str) else variant
    if pairs <= 0:
        return []
    if rules.name == "american" and rules == get_rules("american"):
        deck = list(american_three_move())
        rng = np.random.default_rng(seed)
        out: list[Opening] = []
        while len(out) < pairs:
            out.extend(deck[i] for i in rng.permutation(len(deck)))
        return out[:pairs]
    found = random_openings(rules, pairs, seed)
    if not found:
        raise ValueError(f"variant {rules.name!r} has no opening of 2 or 3 plies that keeps the game going")
    return [found[i % len(found)] for i in range(pairs)]


def paired_openings(variant: str | Rules, games: int, seed: int) -> list[tuple[Opening, bool]]:
    """``games`` starts for a match between A and B: ``(opening, a_first)``, in pairs from one balloted
    opening each, A playing the side that moves first in the first game of a pair and the other side
    in the second (an odd ``games`` ends with half a pair)."""
    if games < 0:
        raise ValueError(f"games must not be negative, got {games}")
    openings = ballot(variant, (games + 1) // 2, seed)
    return [(openings[g // 2], g % 2 == 0) for g in range(games)]
