"""The arena: matches between any agents, balloted openings, and the statistics that rate them.

* :mod:`train.arena.match`: the one match loop (:func:`play_match`),
  :func:`evaluate` (an agent against an opponent, from paired openings) and
  how a match's games ended (:func:`endings`);
* :mod:`train.arena.openings`: balloted openings and their pairing with colours reversed;
* :mod:`train.arena.ratings`: Wilson intervals, Elo differences, paired differences, Elo tables.

``python -m train.evaluate`` (``checkers-arena``) is its command line.
"""

from __future__ import annotations

from .match import (
    DECISIVE_MARGIN,
    LOSSES_TURN_HEADING,
    MATCH_MOVE_CAP,
    GameResult,
    endings,
    evaluate,
    game_ending,
    losses_turn,
    losses_turn_text,
    match_summary,
    play_match,
)
from .openings import Opening, ballot, paired_openings
from .ratings import MatchStats, PairedDifference, fit_elo, match_stats, paired_difference, score_interval

__all__ = [
    "DECISIVE_MARGIN",
    "LOSSES_TURN_HEADING",
    "MATCH_MOVE_CAP",
    "GameResult",
    "MatchStats",
    "Opening",
    "PairedDifference",
    "ballot",
    "endings",
    "evaluate",
    "fit_elo",
    "game_ending",
    "losses_turn",
    "losses_turn_text",
    "match_stats",
    "match_summary",
    "paired_difference",
    "paired_openings",
    "play_match",
    "score_interval",
]
