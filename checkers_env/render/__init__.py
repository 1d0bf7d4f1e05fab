"""Drawing boards: text, SVG, RGB arrays and a pygame window.

    >>> from checkers_env.core import Board
    >>> from checkers_env.render import board_to_text, board_to_svg
    >>> print(board_to_text(Board("russian"), coordinates=False).splitlines()[0])
        b     b     b     b

============================  ==========================  ==================
helper                        gives                       needs
============================  ==========================  ==================
``board_to_text(board)``      text board (``"ansi"``)     nothing
``board_to_svg(board)``       SVG string (notebooks)      nothing
``boards_to_svg(boards)``     boards side by side (SVG)   nothing
``board_to_rgb(board)``       ``uint8[H, W, 3]`` array    Pillow
``PygameWindow(title, size)`` a window showing arrays     pygame
============================  ==========================  ==================

Pillow and pygame come with ``pip install checkers-env[render]``; they are
imported only when an image is drawn or a window opens, and the helpers
themselves are imported on first use. This layer imports only
:mod:`checkers_env.core`; the core never imports it (``Board._repr_svg_``
reaches :func:`board_to_svg` lazily). Orientation and the mirrored boards of
italian and spanish are explained in :mod:`checkers_env.render.layout`.
"""

from __future__ import annotations

import importlib

__all__ = ["board_to_text", "board_to_svg", "boards_to_svg", "board_to_rgb", "PygameWindow"]

_HOMES = {
    "board_to_text": "text",
    "board_to_svg": "svg",
    "boards_to_svg": "svg",
    "board_to_rgb": "image",
    "PygameWindow": "window",
}


def __getattr__(name: str):
    if name in _HOMES:
        value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
