"""The rules core: variants as data, the numba move generator, ``Board``, notation, perft.

Imports only numpy and numba (never torch, gymnasium, pettingzoo or drawing
libraries).
"""

from __future__ import annotations

from . import errors as _errors
from .board import Board, Move, Outcome, Termination
from .colors import BLACK, WHITE, Color
from .errors import *  # noqa: F401,F403
from .pdn import PdnGame, PdnGames, game_to_pdn, games_to_pdn, read_pdn, write_pdn
from .perft import divide, perft
from .variants import VARIANTS, MidCapturePromotion, Rules, get_rules, variant_names

__all__ = [
    "Board",
    "Move",
    "Color",
    "WHITE",
    "BLACK",
    "Outcome",
    "Termination",
    "Rules",
    "MidCapturePromotion",
    "VARIANTS",
    "get_rules",
    "variant_names",
    "perft",
    "divide",
    "PdnGame",
    "PdnGames",
    "read_pdn",
    "write_pdn",
    "game_to_pdn",
    "games_to_pdn",
] + list(_errors.__all__)
