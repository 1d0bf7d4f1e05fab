"""Perft: count the leaves of the legal-move tree (whole moves, duplicates dropped)."""

from __future__ import annotations

from . import movegen as mg
from .board import Board

__all__ = ["perft", "divide"]


def perft(board: Board, depth: int, bulk: bool = True) -> int:
    """Number of move sequences ``depth`` plies long from ``board``.

    A whole multi-capture counts as one move, and two routes that take the
    same pieces to the same square count once. ``bulk=True`` counts the moves
    at the last ply without making them (same result, faster).
    """
    if not isinstance(depth, int) or depth < 0:
        raise ValueError(f"perft depth must be a non-negative integer, got {depth!r}")
    return mg.perft_count(board.state, board.params, depth, bulk)


def divide(board: Board, depth: int, bulk: bool = True) -> list[tuple[str, int]]:
    """``(move text, perft of depth-1 after it)`` for each legal move: find where two generators differ."""
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"divide depth must be a positive integer, got {depth!r}")
    out = []
    for move in board.legal_moves():
        board.push(move)
        try:
            out.append((str(move), perft(board, depth - 1, bulk)))
        finally:
            board.pop()
    return out
