"""Play draughts against the computer in a web browser.

``python -m play [--host 127.0.0.1] [--port 8000] [--checkpoints runs]`` starts
a local web server (:mod:`play.server`, Flask) whose page shows the board, lets
a person choose the variant, their colour and the opponent (minimax at a depth,
random, or one of the trained checkpoints in the ``--checkpoints`` folder), set
up a position from a FEN or load a PDN game, and plays: click a piece then its
destination, or drag it there.
"""

from __future__ import annotations

__all__ = ["create_app"]


def create_app(*args, **kwargs):
    """The Flask application (see :func:`play.server.create_app`)."""
    from .server import create_app as _create_app  # Flask is imported only when a server is wanted

    return _create_app(*args, **kwargs)
