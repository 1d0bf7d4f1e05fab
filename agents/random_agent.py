"""The uniform random player: the floor every other agent must beat."""

from __future__ import annotations

import numpy as np

from checkers_env.core import Board, Move

from .base import Agent, AgentSpecError, register_agent_kind

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """Chooses uniformly among the legal moves (or the legal actions of a mask) with its own generator."""

    name = "random"

    def select_move(self, board: Board) -> Move:
        moves = board.legal_moves()
        if not moves:
            raise ValueError(f"no legal move to choose in position {board.fen()} (the game is over)")
        return moves[int(self.rng.integers(len(moves)))]

    def select_action(self, observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(np.asarray(mask))
        if legal.size == 0:
            raise ValueError("the action mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])


def _factory(args: str, variant: str, seed: int | None) -> Agent:
    if args:
        raise AgentSpecError(f"'random' takes no arguments, got 'random:{args}'")
    return RandomAgent(seed=seed)


register_agent_kind("random", _factory, "random")
