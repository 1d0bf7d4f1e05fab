"""The two colours. White's men start on the low ranks (the high square numbers
of the international numbering); which colour moves first is a rule
(:attr:`~checkers_env.core.variants.Rules.first_player`)."""

from __future__ import annotations

import enum

__all__ = ["Color", "WHITE", "BLACK"]


class Color(enum.IntEnum):
    """Colour of a side; its value is the side-to-move word of a state (0 White, 1 Black)."""

    WHITE = 0
    BLACK = 1

    @property
    def other(self) -> Color:
        """The opposing colour."""
        return Color(1 - self)

    def __repr__(self) -> str:
        # Evaluates back (with Color imported), so repr(Board(...)) with a first_player override does too.
        return f"Color.{self.name}"

    @classmethod
    def parse(cls, value: Color | str | int) -> Color:
        """A colour from a :class:`Color`, ``"white"``/``"black"`` (any case) or 0/1; ``ValueError`` otherwise."""
        if isinstance(value, Color):
            return value
        if isinstance(value, str) and value.strip().upper() in cls.__members__:
            return cls[value.strip().upper()]
        if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            return cls(value)
        raise ValueError(f"a colour is Color.WHITE, Color.BLACK, 'white' or 'black', got {value!r}")


WHITE = Color.WHITE
BLACK = Color.BLACK
