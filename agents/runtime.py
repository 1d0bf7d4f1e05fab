"""Process settings for programs that run agents: thread counts and how idle threads wait.

Importing a module of this project changes no process setting; the entry
points (the training and arena command lines, the play server, the worker
processes they start) call :func:`tune_process` first thing. On a shared
2-core machine the defaults of the libraries hurt: torch's OpenMP threads
spin while they wait for work, which made a training step 2.3 times slower
than one thread while another process was busy (1.25 times when they wait
passively), and numba's OpenMP and TBB layers spin the same way.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from checkers_env.core.jit import use_workqueue_threading

__all__ = [
    "tune_process",
    "usable_cores",
    "ThreadChooser",
    "sigterm_as_interrupt",
    "init_pool_worker",
    "run_in_workers",
]


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Inside the block SIGTERM (a kill, a job timeout) raises ``KeyboardInterrupt``, as Ctrl-C does, so
    long work stops the way it stops for Ctrl-C (finished work written); the handler before is restored
    after it. Main thread only."""
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def init_pool_worker() -> None:
    """Initializer of a process-pool worker that runs one agent per core: Ctrl-C is left to the parent
    (which stops the pool), and torch gets one thread, so workers on every core do not oversubscribe
    it (two processes with two torch threads each on two cores ran many times slower than one each)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    tune_process(torch_threads=1)


def _indexed(item: tuple[Callable, int, object]) -> tuple[int, object]:
    func, k, task = item
    return k, func(task)


def run_in_workers(func: Callable, tasks: Sequence, workers: int, on_result: Callable[[int, object], None]) -> None:
    """``func(task)`` for every task, in at most ``workers`` spawned processes that run
    :func:`init_pool_worker` first; ``on_result(k, result)`` is called here for task ``k`` as each
    finishes (in the order they finish). ``func`` and the tasks must pickle. Any exception, Ctrl-C
    included, stops the pool at once and is raised; the results already handed over stay so."""
    pool = mp.get_context("spawn").Pool(max(1, min(workers, len(tasks))), initializer=init_pool_worker)
    try:
        for k, result in pool.imap_unordered(_indexed, [(func, k, task) for k, task in enumerate(tasks)]):
            on_result(k, result)
        pool.close()
    except BaseException:  # a task that failed, or an interruption: stop the others
        pool.terminate()
        raise
    finally:
        pool.join()


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def tune_process(torch_threads: int | None = None) -> None:
    """Settings for an entry point: passive OpenMP waiting, numba's workqueue threads, torch's threads.

    ``OMP_WAIT_POLICY`` is read when torch loads, so call this before
    importing torch (it is left alone if the user set it, and has no effect
    once torch is loaded). ``torch_threads`` (when given) sets torch's
    intra-op threads, importing torch.
    """
    if "torch" not in sys.modules:
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    use_workqueue_threading()
    if torch_threads is not None:
        if torch_threads < 1:
            raise ValueError(f"torch_threads must be at least 1, got {torch_threads}")
        import torch

        torch.set_num_threads(int(torch_threads))


class ThreadChooser:
    """Picks the number of torch threads for a repeated piece of work by timing it, again and again.

    On an idle machine two threads train a network faster than one; on a
    machine where another process keeps a core busy they can be many times
    slower (their threads wait for each other). Before each batch of work,
    :meth:`choose` returns a thread count to probe or the best one measured
    so far, and :meth:`record` notes how long a unit of work took with it;
    old measurements fade, so a change of load is noticed within a few
    batches.
    """

    def __init__(self, candidates: tuple[int, ...] | None = None, probes: int = 2, memory: float = 0.5):
        cores = usable_cores()
        self.candidates = tuple(sorted(set(candidates or (1, cores))))
        self.probes = probes
        self.memory = memory
        self.seconds: dict[int, float] = {}
        self._probed: dict[int, int] = {}

    def choose(self) -> int:
        """The thread count to use for the next unit of work (probing each candidate first)."""
        for threads in self.candidates:
            if self._probed.get(threads, 0) < self.probes:
                return threads
        return min(self.candidates, key=lambda t: self.seconds[t])

    def record(self, threads: int, seconds: float) -> None:
        """One unit of work took ``seconds`` with ``threads`` threads."""
        old = self.seconds.get(threads)
        self.seconds[threads] = seconds if old is None else self.memory * old + (1 - self.memory) * seconds
        self._probed[threads] = self._probed.get(threads, 0) + 1

    def reprobe(self) -> None:
        """Measure every candidate again at the next units of work (load may have changed)."""
        self._probed.clear()
