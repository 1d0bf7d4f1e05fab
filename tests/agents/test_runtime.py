"""Process settings and worker pools for programs that run agents (:mod:`agents.runtime`)."""

from __future__ import annotations

import math
import signal

import pytest

from agents.runtime import run_in_workers, sigterm_as_interrupt


def test_run_in_workers_hands_over_every_result_with_its_task_index():
    got: dict[int, float] = {}
    run_in_workers(math.sqrt, [4.0, 9.0, 16.0], 2, got.__setitem__)
    assert got == {0: 2.0, 1: 3.0, 2: 4.0}


def test_a_task_that_fails_in_a_worker_raises_its_own_error():
    # before one pool helper, the arena's pool was joined while still running and that error hid this one
    with pytest.raises(ValueError, match="math domain"):
        run_in_workers(math.sqrt, [4.0, -1.0], 2, lambda k, r: None)


def test_sigterm_raises_an_interrupt_inside_the_block_only():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), sigterm_as_interrupt():
        signal.raise_signal(signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) == before
