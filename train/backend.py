"""Where a run's games are played: on this machine (the default) or on a Ray cluster (``--backend ray``).

A backend offers the two kinds of game a run plays besides training:

* ``selfplay_pool(workers, games)``: the runner an AlphaZero iteration
  plays its ``games`` self-play games in (``workers``: the learner's
  setting): :class:`InProcessSelfPlay`,
  :class:`~train.alphazero.workers.SelfPlayPool` or the Ray backend itself.
  All three keep one contract, whose signature is written once, on
  :meth:`SelfPlayPool.play <train.alphazero.workers.SelfPlayPool.play>`:
  ``play(weights, net_config, rules, mcts_config, selfplay_config, seed,
  num_games, device, on_game=...)``; games arrive whole, one ``on_game``
  call each, and come back in (share, finish) order;
* ``evaluate(rules, agent, opponent, games, seed, max_moves, progress)``:
  a match of the learner's agent against an opponent spec, as
  :func:`train.arena.evaluate`.

and ``start()`` (called before training begins, so that starting a
cluster's workers is not charged to the training budget) and ``close()``.
The run loop (:mod:`train.run`) makes one backend
(:func:`make_backend`), hands it to the learner and evaluates through it:
neither branches on which backend it is.

* :class:`LocalBackend`: self-play in a pool of local processes
  (:class:`~train.alphazero.workers.SelfPlayPool`, one per usable core by
  default; :class:`InProcessSelfPlay` for one worker or one game),
  evaluation in this process;
* :class:`~train.distributed.RayBackend`: self-play and evaluation games on
  Ray actors, one per CPU (or GPU share) of the cluster; the learner stays
  in this process (see :mod:`train.distributed`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .arena import MATCH_MOVE_CAP, evaluate

if TYPE_CHECKING:
    from agents.base import Agent
    from checkers_env.core import Rules

    from .alphazero.selfplay import GameRecord, SelfPlayJob
    from .alphazero.workers import SelfPlayPool
    from .arena import GameResult

__all__ = ["InProcessSelfPlay", "LocalBackend", "make_backend"]


class InProcessSelfPlay:
    """A self-play runner that plays every game in the calling process (no worker processes); it keeps
    the games carried between iterations (``selfplay.carry_over``) from one call to the next."""

    workers = 1

    def __init__(self) -> None:
        from .alphazero.selfplay import GameCarry

        self._carry = GameCarry()

    def play(self, job: SelfPlayJob, on_game: Callable[[GameRecord], None] | None = None) -> list[GameRecord]:
        """The job's games, as the other runners play them: :func:`train.alphazero.selfplay.play_selfplay_games`,
        here; ``on_game(record)`` as each one ends."""
        from .alphazero.selfplay import play_selfplay_games

        return play_selfplay_games(job, on_game=on_game, carry=self._carry.take(job.rules, job.selfplay_config))


class LocalBackend:
    """Games on this machine: self-play in local worker processes, evaluation in this process."""

    def __init__(self) -> None:
        self._pool: SelfPlayPool | None = None
        self._in_process: InProcessSelfPlay | None = None

    def start(self) -> None:
        """Nothing to start: the pool starts when an iteration first needs it."""

    def selfplay_pool(self, workers: int, games: int) -> SelfPlayPool | InProcessSelfPlay:
        """A pool of ``workers`` processes (started on first use, kept until :meth:`close`); for one
        worker or one game, :class:`InProcessSelfPlay` (no process to start for so little)."""
        if workers <= 1 or games <= 1:
            if self._in_process is None:
                self._in_process = InProcessSelfPlay()
            return self._in_process
        if self._pool is None or self._pool.workers != workers:
            from .alphazero.workers import SelfPlayPool

            self.close()
            self._pool = SelfPlayPool(workers)
        return self._pool

    def evaluate(self, rules: Rules, agent: Agent, opponent: str | Agent, games: int, seed: int,
                 max_moves: int = MATCH_MOVE_CAP, progress: bool = False) -> tuple[dict, list[GameResult]]:  # fmt: skip
        """:func:`train.arena.evaluate`, in this process."""
        return evaluate(rules, agent, opponent, games, seed, max_moves, progress)

    def close(self) -> None:
        """End the worker processes (if any were started); the backend may be used again afterwards."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def make_backend(cfg):
    """The backend ``cfg.backend`` names: :class:`LocalBackend`, or a :class:`~train.distributed.RayBackend`
    joining ``cfg.ray_address`` (None: a local Ray started for the run). Ray starts on first use."""
    if cfg.backend == "local":
        return LocalBackend()
    if cfg.backend == "ray":
        from .distributed import RayBackend

        return RayBackend(address=cfg.ray_address, device=cfg.device)
    raise ValueError(f"unknown backend {cfg.backend!r}; known: local, ray")
