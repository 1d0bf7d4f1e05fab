"""Exceptions raised by the rules core. All are ``ValueError`` subclasses."""

from __future__ import annotations

__all__ = [
    "CheckersError",
    "RulesError",
    "UnknownVariantError",
    "InvalidFenError",
    "InvalidSquareError",
    "IllegalMoveError",
    "AmbiguousMoveError",
    "InvalidPdnError",
    "EmptyMoveStackError",
]


class CheckersError(ValueError):
    """Base class of every error the core raises for bad input."""


class RulesError(CheckersError):
    """An invalid combination of rule fields."""


class UnknownVariantError(RulesError):
    """A variant name that is not known."""


class InvalidFenError(CheckersError):
    """A FEN string that cannot be read."""


class InvalidSquareError(CheckersError):
    """A square name or number that is not a playable square of the board."""


class IllegalMoveError(CheckersError):
    """A move that is not legal in the position (or malformed move text)."""


class AmbiguousMoveError(IllegalMoveError):
    """Move text that matches more than one legal move."""


class InvalidPdnError(CheckersError):
    """A PDN game text that cannot be read, or a game in it that cannot be replayed.

    ``game_number`` is the game's position in its file (1-based) and ``line``
    the line of the file where the problem is (1-based); either is None where
    it is not known (a game built in code, a FEN given alone).
    """

    def __init__(self, message: str = "", *, game_number: int | None = None, line: int | None = None):
        super().__init__(message)
        self.game_number = game_number
        self.line = line


class EmptyMoveStackError(CheckersError, IndexError):
    """``pop()`` or ``peek()`` on a board with no moves played."""
