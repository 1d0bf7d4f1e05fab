"""A plain negamax over ``Board`` with the kernel's exact semantics (no pruning, no table).

Tests compare :class:`agents.minimax.MinimaxAgent` with ``use_tt=False``
against it: alpha-beta must return the same root score as full minimax.
"""

from __future__ import annotations

from agents import alphabeta as ks
from agents.minimax import evaluate_board
from checkers_env.core import Board
from checkers_env.core import movegen as mg


def has_capture(board: Board, side: int) -> bool:
    s = board.state
    own = s[mg.S_WHITE] if side == 0 else s[mg.S_BLACK]
    opp = s[mg.S_BLACK] if side == 0 else s[mg.S_WHITE]
    return bool(mg.has_capture(board.params, own, opp, s[mg.S_KINGS], side))


def negamax(board: Board, depth: int, ply: int = 0) -> int:
    """Value for the side to move: ``depth`` plies, then quiescence and the one-ply threat extension."""
    moves = board.legal_moves()
    if not moves:
        return -(ks.MATE - ply)
    draw = board.rules.draw_plies
    if draw and board.halfmove_clock >= draw:
        return 0
    turn = int(board.turn)
    extended = False
    if depth <= 0 and not has_capture(board, turn):
        if depth == 0 and has_capture(board, 1 - turn):
            extended = True
        else:
            return evaluate_board(board)
    best = -ks.INF
    if depth <= 0 and not board.rules.forced_capture and not extended:
        best = evaluate_board(board)
        moves = [m for m in moves if m.captures]
    for move in moves:
        board.push(move)
        best = max(best, -negamax(board, depth - 1, ply + 1))
        board.pop()
    return best


def root_scores(board: Board, depth: int) -> dict:
    """Full-minimax score of every root move at ``depth`` plies."""
    out = {}
    for move in board.legal_moves():
        board.push(move)
        out[move] = -negamax(board, depth - 1, 1)
        board.pop()
    return out
