"""A pygame window that shows RGB frames (PettingZoo's ``"human"`` render mode).

    >>> window = PygameWindow("checkers", 400)        # doctest: +SKIP
    >>> window.show(board_to_rgb(board, size=400))   # doctest: +SKIP
    >>> window.close()                               # doctest: +SKIP

The window only shows pictures; it knows nothing of boards, so the env layer
draws with :func:`~checkers_env.render.image.board_to_rgb` and hands the
array over. For a headless machine (tests, CI) set ``SDL_VIDEODRIVER=dummy``
before the first window opens. pygame is optional
(``pip install checkers-env[render]``) and imported when a window opens.
"""

from __future__ import annotations

import os

import numpy as np

from ..core.extras import missing

__all__ = ["PygameWindow"]


def _pygame():
    # pygame prints a banner on import unless told not to.
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise missing("pygame", "the 'human' render mode", exc) from exc
    return pygame


class PygameWindow:
    """A window of ``size`` pixels (an int for a square, or ``(width, height)``).

    The window opens on construction. :meth:`show` draws a frame and handles
    pending window events; when the user closes the window, :attr:`is_open`
    turns False and later frames are ignored. :meth:`close` may be called
    more than once.
    """

    def __init__(self, title: str = "checkers", size: int | tuple[int, int] = 400):
        width, height = (size, size) if isinstance(size, (int, np.integer)) else size
        if int(width) < 1 or int(height) < 1:
            raise ValueError(f"window size must be positive, got {size!r}")
        self.size: tuple[int, int] = (int(width), int(height))
        """Width and height of the drawing area in pixels."""
        self._pygame = _pygame()
        self._pygame.display.init()
        self._screen = self._pygame.display.set_mode(self.size)
        self._pygame.display.set_caption(str(title))
        self._clock = self._pygame.time.Clock()
        self._open = True

    @property
    def is_open(self) -> bool:
        """Whether the window is still showing (not closed by :meth:`close` or by the user)."""
        return self._open

    def show(self, rgb: np.ndarray, fps: float | None = None) -> None:
        """Draw an image, scaled to the window, and handle window events.

        Args:
            rgb: ``uint8`` array of shape ``[height, width, 3]``.
            fps: if given, wait so that frames come at most this many per second.

        Raises:
            ValueError: when ``rgb`` is not an ``[H, W, 3]`` array.
        """
        array = np.asarray(rgb)
        if array.ndim != 3 or array.shape[2] != 3:
            raise ValueError(f"show() takes an RGB array of shape [height, width, 3], got shape {array.shape}")
        if not self._open:
            return
        pygame = self._pygame
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self.close()
                return
        # pygame surfaces are indexed [x, y]; image arrays [row, column].
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(array.astype(np.uint8).swapaxes(0, 1)))
        if surface.get_size() != self.size:
            surface = pygame.transform.smoothscale(surface, self.size)
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        if fps:
            self._clock.tick(fps)

    def close(self) -> None:
        """Close the window (pygame's display module is shut down; other pygame modules are left alone).

        There is one pygame display per process, so a window is closed only by
        this call or by the user, never when the object is garbage-collected
        (that would close a newer window).
        """
        if self._open:
            self._open = False
            self._pygame.display.quit()

    def __enter__(self) -> PygameWindow:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
