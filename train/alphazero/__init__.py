"""AlphaZero: self-play with batched MCTS, an append-only game log and replay buffer, gating.

Read an iteration top to bottom in :mod:`train.alphazero.learner`; the
pieces it calls live beside it: :mod:`~train.alphazero.selfplay` (the
self-play worker), :mod:`~train.alphazero.workers` (a pool of processes
running it), :mod:`~train.alphazero.replay` (buffer and game log),
:mod:`~train.alphazero.loss` (the training step) and
:mod:`~train.alphazero.config`. Outside this folder it uses only the
leg-level game (:mod:`checkers_env.game`), the MCTS (:mod:`agents.mcts`)
and the network (:mod:`agents.networks`), plus the arena for gating.
"""

from __future__ import annotations

from .config import AlphaZeroConfig, SelfPlayConfig

__all__ = ["AlphaZeroConfig", "SelfPlayConfig"]
