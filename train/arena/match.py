"""The one match loop: games between two agents from given starts, every game played in lockstep.

:func:`play_match` is what the arena command, the periodic evaluation of a
training run and AlphaZero's gating all play with. All games of a match go
on at once: at each turn the games waiting for one agent are handed to its
:meth:`~agents.base.Agent.select_moves` together, so a network that searches
(or evaluates) many positions in one batch plays a whole match about as fast
as one game, while agents that think one board at a time play them in turn.

A game ends by the rules (:meth:`~checkers_env.core.Board.outcome`), or is
scored a draw after ``max_moves`` whole moves past its opening (a safety
net), or is lost by an agent that returns an illegal move.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from agents.base import Agent, make_agent
from checkers_env.core import Board, Color, Move, Rules, get_rules

from ..progress import progress_bar
from .openings import Opening, paired_openings
from .ratings import match_stats

__all__ = [
    "MATCH_MOVE_CAP",
    "DECISIVE_MARGIN",
    "LOSSES_TURN_HEADING",
    "GameResult",
    "losses_turn",
    "losses_turn_text",
    "play_match",
    "evaluate",
    "match_summary",
    "game_ending",
    "endings",
]

MATCH_MOVE_CAP = 200
"""Whole moves past its opening after which a match game still going is scored a draw, unless a caller
says otherwise: the safety net of every match (the arena, a training run's evaluations, the benchmark).
A draw by this cap is a game that neither side could finish, not a rule of the variant."""


@dataclass
class GameResult:
    """One finished game of a match, from A's side."""

    board: Board
    """The final position with every move (the opening's included) on its stack."""
    a_colour: Color
    """The colour A played."""
    score: float
    """A's score: 1 win, 0.5 draw, 0 loss."""
    winner: Color | None
    """The winning colour (None: a draw)."""
    termination: str
    """Why the game ended: the rules' termination, a draw by the move cap, or an illegal move."""
    opening: str
    """Name of the opening it started from."""


def play_match(
    variant: str | Rules,
    a: Agent,
    b: Agent,
    starts: Sequence[tuple[Opening, bool]],
    max_moves: int = MATCH_MOVE_CAP,
    on_game: Callable[[int, GameResult], None] | None = None,
) -> list[GameResult]:
    """Play one game per ``(opening, a_first)`` of ``starts`` between agents ``a`` and ``b``.

    ``a_first``: A plays the side that moves first in the variant. ``a`` and
    ``b`` must be different objects (two instances of one spec keep their own
    state). ``on_game(k, result)`` is called as game ``k`` ends. Returns the
    results in the order of ``starts``.
    """
    if a is b:
        raise ValueError("the two players must be different agent objects (make two of the same spec)")
    rules = get_rules(variant)
    first = Board(rules).turn
    boards = [opening.board(rules) for opening, _ in starts]
    a_colours = [first if a_first else first.other for _, a_first in starts]
    played = [0] * len(starts)
    results: list[GameResult | None] = [None] * len(starts)

    def end(k: int, winner: Color | None, termination: str) -> None:
        score = 0.5 if winner is None else (1.0 if winner == a_colours[k] else 0.0)
        results[k] = GameResult(boards[k], a_colours[k], score, winner, termination, starts[k][0].name)
        if on_game is not None:
            on_game(k, results[k])

    def settle(k: int) -> None:
        outcome = boards[k].outcome()
        if outcome is not None:
            end(k, outcome.winner, outcome.termination.value)
        elif played[k] >= max_moves:
            end(k, None, f"draw by the cap of {max_moves} moves")

    for k in range(len(starts)):
        settle(k)
    while any(r is None for r in results):
        for agent, is_a in ((a, True), (b, False)):
            waiting = [k for k, r in enumerate(results) if r is None and (boards[k].turn == a_colours[k]) == is_a]
            if not waiting:
                continue
            moves: list[Move] = agent.select_moves([boards[k].copy() for k in waiting])
            for k, move in zip(waiting, moves):
                if not isinstance(move, Move) or not boards[k].is_legal(move):
                    end(k, boards[k].turn.other, f"illegal move {move} by {agent.name}")
                    continue
                boards[k].push(move)
                played[k] += 1
                settle(k)
    return [r for r in results if r is not None]


def evaluate(
    variant: str | Rules,
    agent: Agent,
    opponent: str | Agent,
    games: int,
    seed: int,
    max_moves: int = MATCH_MOVE_CAP,
    progress: bool = False,
) -> tuple[dict, list[GameResult]]:
    """Play ``games`` games of ``agent`` against ``opponent`` (an agent spec or an agent), in pairs from
    balloted openings with colours reversed; returns the match statistics from ``agent``'s side
    (:meth:`~train.arena.ratings.MatchStats.as_dict` plus ``"opponent"``) and the games."""
    rules = get_rules(variant)
    name = opponent if isinstance(opponent, str) else opponent.name
    other = make_agent(opponent, rules.name, seed=seed) if isinstance(opponent, str) else opponent
    starts = paired_openings(rules, games, seed)
    with progress_bar(len(starts), f"eval vs {name}", progress, "game") as bar:
        results = play_match(rules, agent, other, starts, max_moves, on_game=lambda k, r: bar.update(1))
    return match_summary(name, results), results


def match_summary(opponent: str, results: Sequence[GameResult]) -> dict:
    """The statistics document of a match from A's side (:meth:`~train.arena.ratings.MatchStats.as_dict`
    plus ``"opponent"`` and ``"endings"``, see :func:`endings`), as :func:`evaluate` returns it."""
    wins = sum(r.score == 1.0 for r in results)
    draws = sum(r.score == 0.5 for r in results)
    stats = match_stats(wins, draws, len(results) - wins - draws)
    return {"opponent": opponent, **stats.as_dict(), "endings": endings([game_ending(r) for r in results])}


def game_ending(result: GameResult) -> dict:
    """How one game ended, as plain data: A's ``score``, the ``plies`` on the board's stack (the
    opening's included), the ``termination``, each side's ``pieces`` at the end, ``{"a": [men,
    kings], "b": [men, kings]}``, and ``behind_from`` / ``ahead_from``: the plies played (as
    ``plies`` counts them) from which A stayed at least :data:`DECISIVE_MARGIN` pieces behind (ahead)
    to the end, None where it did not end so."""
    board, a = result.board, result.a_colour
    margins = _piece_margins(board, a)
    return {
        "score": result.score,
        "plies": len(board.move_stack),
        "termination": result.termination,
        "pieces": {
            side: [len(board.pieces(c, kings=False)), len(board.pieces(c, kings=True))]
            for side, c in (("a", a), ("b", a.other))
        },
        "behind_from": _held_from(margins, lambda m: m <= -DECISIVE_MARGIN),
        "ahead_from": _held_from(margins, lambda m: m >= DECISIVE_MARGIN),
    }


DECISIVE_MARGIN = 2
"""Pieces (men and kings alike) by which a side behind for good is behind, in :func:`game_ending`."""


def _piece_margins(board: Board, colour: Color) -> list[int]:
    """``colour``'s pieces minus the other side's (men and kings alike) after each ply of ``board``'s
    move stack: ``len(board.move_stack) + 1`` margins, the first before any ply was played."""
    replay = board.copy()
    margins = []
    while True:
        margins.append(len(replay.pieces(colour)) - len(replay.pieces(colour.other)))
        if not replay.move_stack:
            break
        replay.pop()
    return margins[::-1]


def _held_from(margins: list[int], holds: Callable[[int], bool]) -> int | None:
    """The first index from which ``holds`` is true of every margin to the end (None: not of the last)."""
    start = None
    for i in range(len(margins) - 1, -1, -1):
        if not holds(margins[i]):
            break
        start = i
    return start


def endings(games: Sequence[Mapping]) -> dict[str, dict]:
    """How the games of a match ended (each a :func:`game_ending` or a record with its keys), by A's
    result: for ``wins``, ``draws`` and ``losses``, the ``games``, the ``median_plies``, the
    ``terminations`` counted (most frequent first), the ``median_piece_margin``, A's pieces minus
    B's at the end, men and kings alike (None where there are no games), and ``behind_for_good`` /
    ``ahead_for_good``: of the games A ended two pieces behind (ahead), how many (``games``) and the
    median ply from which it stayed so (``median_from``; None where there are none). Where a match is
    lost shows here: wipe-outs a hundred plies in and draws at the cap a piece behind are different
    weaknesses, and a wipe-out that was two pieces behind from ply 40 was lost in the middle game."""
    out = {}
    for key, score in (("wins", 1.0), ("draws", 0.5), ("losses", 0.0)):
        mine = [g for g in games if g["score"] == score]
        terminations = Counter(g["termination"] for g in mine)
        margins = [sum(g["pieces"]["a"]) - sum(g["pieces"]["b"]) for g in mine]
        out[key] = {
            "games": len(mine),
            "median_plies": float(np.median([g["plies"] for g in mine])) if mine else None,
            "terminations": dict(terminations.most_common()),
            "median_piece_margin": float(np.median(margins)) if mine else None,
            **{f"{side}_for_good": _held(mine, f"{side}_from") for side in ("behind", "ahead")},
        }
    return out


def losses_turn(summary: Mapping) -> dict | None:
    """Where a match's losses were decided, from its :func:`match_summary` document: ``{"losses": N,
    "games": M, "median_from": PLY}``, of its N lost games the M that A ended :data:`DECISIVE_MARGIN`
    pieces or more behind for good, and the median ply from which it stayed so. None for a match
    without endings (a document written before they were kept)."""
    losses = summary.get("endings", {}).get("losses")
    if not losses:
        return None
    return {"losses": losses["games"], **losses["behind_for_good"]}


LOSSES_TURN_HEADING = f"losses {DECISIVE_MARGIN}+ pieces behind to the end: from ply (median)"
"""The heading of a table column of :func:`losses_turn_text` cells."""


def losses_turn_text(turn: Mapping | None) -> str:
    """A table cell for :func:`losses_turn`: ``"118.5 (4 of 5)"``, empty where no loss ended so."""
    if turn is None or not turn["games"]:
        return ""
    return f"{turn['median_from']:g} ({turn['games']} of {turn['losses']})"


def _held(games: Sequence[Mapping], key: str) -> dict:
    """How many of ``games`` have ``key`` (``behind_from`` or ``ahead_from``), and its median."""
    plies = [g[key] for g in games if g[key] is not None]
    return {"games": len(plies), "median_from": float(np.median(plies)) if plies else None}
