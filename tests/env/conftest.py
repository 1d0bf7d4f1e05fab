"""Shared helpers for the env-layer tests."""

from __future__ import annotations

import os

import numpy as np

# pygame windows in tests draw to no screen
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from checkers_env.core import Board  # noqa: E402

CONFIGS = [
    ("american", {}),
    ("russian", {}),
    ("brazilian", {}),
    ("spanish", {}),
    ("italian", {}),
    ("czech", {}),
    ("international", {}),
    ("pool", {}),
    ("american", {"forced_capture": False}),
]
"""Every variant, plus the no-mandatory-capture house rule."""

CONFIG_IDS = [v + ("-" + "-".join(f"{k}={x}" for k, x in o.items()) if o else "") for v, o in CONFIGS]


def random_positions(variant: str, count: int, seed: int, **overrides) -> list[Board]:
    """``count`` positions with the side to move able to move, from seeded random games."""
    rng = np.random.default_rng(seed)
    out: list[Board] = []
    while len(out) < count:
        board = Board(variant, **overrides)
        while board.outcome() is None and len(out) < count:
            out.append(board.copy(stack=False))
            moves = board.legal_moves()
            board.push(moves[rng.integers(len(moves))])
    return out
