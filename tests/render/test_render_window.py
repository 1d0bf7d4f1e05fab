"""The pygame window opens, shows frames and closes on a headless display."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pygame")
pytest.importorskip("PIL")

from checkers_env.core import Board  # noqa: E402
from checkers_env.render import PygameWindow, board_to_rgb  # noqa: E402


@pytest.fixture
def headless(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")


def test_window_opens_shows_and_closes(headless):
    import pygame

    window = PygameWindow("checkers test", 160)
    assert window.is_open and window.size == (160, 160)
    board = Board("american")
    window.show(board_to_rgb(board, size=200))  # scaled to fit
    board.push("11-15")
    window.show(board_to_rgb(board, size=160), fps=1000)
    shown = pygame.surfarray.array3d(pygame.display.get_surface()).swapaxes(0, 1)
    assert np.array_equal(shown, board_to_rgb(board, size=160))
    window.close()
    assert not window.is_open
    window.close()  # closing twice is harmless
    window.show(np.zeros((4, 4, 3), dtype=np.uint8))  # ignored once closed


def test_window_rejects_bad_frames_and_sizes(headless):
    with PygameWindow("checkers test", (120, 80)) as window:
        with pytest.raises(ValueError, match=r"\[height, width, 3\]"):
            window.show(np.zeros((10, 10), dtype=np.uint8))
        assert window.is_open
    assert not window.is_open
    with pytest.raises(ValueError, match="positive"):
        PygameWindow("checkers test", 0)
