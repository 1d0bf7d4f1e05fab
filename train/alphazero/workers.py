"""Self-play on every core: the self-play worker function run in a pool of processes.

:func:`train.alphazero.selfplay.play_selfplay_games` is a pure function of its
:class:`~train.alphazero.selfplay.SelfPlayJob` (weights, configs, seed), so an iteration's games can be split among processes that
each play their share with their own network copy and one torch thread.
:class:`SelfPlayPool` keeps those processes alive for the whole run (they
start once: importing torch and loading the compiled kernels takes seconds)
and streams every finished game back as soon as it ends, so an interrupted
iteration keeps the games already finished, as the single-process path does.

Processes are started with ``spawn`` (forking a process that has torch's
thread pools is unsafe). Worker ``k`` of an iteration plays with seed
``seed + SHARE_SEED_STRIDE * k``.

Games are shared out as the iteration goes (``dynamic=True``, the default),
through a counter the workers share: each worker keeps
``selfplay.parallel_games`` games going when carrying games between
iterations (see below), or starts three quarters of its even share when not,
and the rest go to whichever worker frees a slot first (the rule is
:func:`worker_batch`).
A worker slowed down by a busy core then plays fewer games instead of
keeping the others idle while it finishes its half. Which worker plays which game then depends on timing; with
``dynamic=False`` each worker plays a fixed share and the games come back
in (worker, finishing order), so a run is reproducible for a given number
of workers.

Games carried between iterations (``selfplay.carry_over``, see
:mod:`train.alphazero.selfplay`): the pool keeps the games its workers
parked and hands them out, in turn, to the next iteration's workers. An
iteration's games are then the first to end, at any worker (the shared
counter counts games as they end), and every worker plays on until they
have all ended, so no worker waits idle at the end of an iteration.

Workers ignore SIGINT: Ctrl-C reaches the trainer, which saves the games
received so far and then :meth:`SelfPlayPool.close` ends the workers.
"""

from __future__ import annotations

import multiprocessing as mp
import queue as queue_module
import signal
from collections.abc import Callable

from agents.runtime import tune_process

from .selfplay import GameCarry, GameRecord, SelfPlayJob, play_selfplay_games

__all__ = ["SelfPlayPool", "worker_batch"]

_WORKER_QUEUE = None
_CLAIMED = None  # games of the iteration started (carrying: ended) at any worker (a shared counter)


def _init_worker(results, claimed, threads: int) -> None:
    global _WORKER_QUEUE, _CLAIMED
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    tune_process(torch_threads=threads)  # a worker process is an entry point: its threads are set here
    _WORKER_QUEUE = results
    _CLAIMED = claimed


def _claim_one(total: int) -> bool:
    with _CLAIMED.get_lock():
        if _CLAIMED.value >= total:
            return False
        _CLAIMED.value += 1
        return True


def _play_share(worker: int, job: SelfPlayJob, dynamic_total: int, parallel: int, carry: list | None) -> list | None:
    """Play worker ``worker``'s share (``job`` is that share); returns the games it parked (``carry`` refilled), or None
    when not carrying."""
    finished = 0

    def send(record: GameRecord) -> None:
        nonlocal finished
        _WORKER_QUEUE.put((worker, finished, record))
        finished += 1

    claim = (lambda: _claim_one(dynamic_total)) if dynamic_total else None
    # carrying, every worker plays on until the iteration's games have all ended, at any worker
    over = (lambda: _CLAIMED.value >= dynamic_total) if dynamic_total else None
    play_selfplay_games(job, on_game=send, claim=claim, parallel=parallel, carry=carry, iteration_over=over)
    return carry


def worker_batch(num_games: int, workers: int, parallel_games: int, carrying: bool) -> int:
    """Games one of ``workers`` plays at once (its network batch) in an iteration of ``num_games`` games
    shared out as the iteration goes.

    Not carrying, a worker starts three quarters of its even share and the rest go to whichever frees a
    slot first. Carrying, every slot plays to the end of the iteration and games are counted as they end
    (the ones still going are carried to the next), so a worker keeps ``parallel_games`` busy, or the
    whole iteration's games if fewer: the games per iteration set how often the network is updated,
    not the batch.
    """
    if carrying:
        return max(1, min(parallel_games, num_games))
    even = -(-num_games // workers)
    return min(parallel_games, max(1, -(-3 * even // 4)))


class SelfPlayPool:
    """``workers`` self-play processes (each with ``threads`` torch threads) that live until :meth:`close`."""

    def __init__(self, workers: int, threads: int = 1):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = int(workers)
        ctx = mp.get_context("spawn")
        self._results = ctx.Queue()
        self._claimed = ctx.Value("q", 0)
        self._carry = GameCarry()
        self._pool = ctx.Pool(self.workers, initializer=_init_worker, initargs=(self._results, self._claimed, threads))

    def play(
        self, job: SelfPlayJob, on_game: Callable[[GameRecord], None] | None = None, dynamic: bool = True
    ) -> list[GameRecord]:
        """The job's games shared among the workers; ``on_game(record)`` as each one arrives.

        Returns them ordered by worker, then by the order they finished in
        (see the module docstring for ``dynamic`` and for the games carried between calls).
        """
        job = job.portable()
        num_games, selfplay_config = job.num_games, job.selfplay_config
        carried = self._carry.take(job.rules, selfplay_config)
        if dynamic and self.workers > 1:
            with self._claimed.get_lock():
                self._claimed.value = 0
            parallel = worker_batch(num_games, self.workers, selfplay_config.parallel_games, carried is not None)
            # each may play them all; the shared counter stops them at the total
            shares = [job.share(k, num_games) for k in range(self.workers)]
            total = num_games
        else:
            shares = job.split(self.workers)
            parallel = selfplay_config.parallel_games
            total = 0
        pending = []
        playing = [worker for worker, share in enumerate(shares) if share.num_games]
        for k, worker in enumerate(playing):
            carry = None if carried is None else carried[k :: len(playing)]  # carried games dealt in turn
            args = (worker, shares[worker], total, parallel, carry)
            pending.append(self._pool.apply_async(_play_share, args))
        if carried is not None:
            carried.clear()  # the workers hold them now; what they park comes back below
        received: list[tuple[int, int, GameRecord]] = []
        while len(received) < num_games:
            try:
                item = self._results.get(timeout=0.5)
            except queue_module.Empty:
                for result in pending:
                    if result.ready() and not result.successful():
                        result.get()  # re-raises the worker's exception here
                continue
            received.append(item)
            if on_game is not None:
                on_game(item[2])
        for result in pending:
            parked = result.get()
            if carried is not None:
                carried.extend(parked)
        received.sort(key=lambda item: (item[0], item[1]))
        return [record for _, _, record in received]

    def close(self) -> None:
        """End the worker processes (games in progress are dropped)."""
        self._pool.terminate()
        self._pool.join()
        self._results.close()

    def __enter__(self) -> SelfPlayPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
