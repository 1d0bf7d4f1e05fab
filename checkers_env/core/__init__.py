"""The rules core: variants as data, the numba move generator, ``Board``, notation, perft.

Imports only numpy and numba (never torch, gymnasium, pettingzoo or drawing
libraries).
"""

from __future__ import annotations

import os

# Idle numba worker threads must not spin on a shared 2-core machine: prefer the
# workqueue layer unless the user chose one. numba reads the variable when it is
# first imported, so set its config too in case it was imported already.
if "NUMBA_THREADING_LAYER" not in os.environ:
    os.environ["NUMBA_THREADING_LAYER"] = "workqueue"
    import numba

    numba.config.THREADING_LAYER = "workqueue"

from . import errors as _errors  # noqa: E402
from .board import BLACK, WHITE, Board, Color, Move, Outcome, Termination  # noqa: E402
from .errors import *  # noqa: E402,F401,F403
from .pdn import PdnGame, PdnGames, game_to_pdn, games_to_pdn, read_pdn, write_pdn  # noqa: E402
from .perft import divide, perft  # noqa: E402
from .variants import VARIANTS, MidCapturePromotion, Rules, get_rules, variant_names  # noqa: E402

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
