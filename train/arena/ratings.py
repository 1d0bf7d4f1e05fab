"""Match statistics: confidence intervals, Elo differences, and Elo tables from round robins.

Scores count a win 1, a draw 1/2, a loss 0. Intervals are 95% (``z = 1.96``).

* Win, draw and loss rates: Wilson score intervals.
* Match score: the mean game score, with the Wilson interval of the score
  rate (a little conservative when there are draws).
* Elo difference: ``-400 log10(1/s - 1)``, its interval the same map applied to
  the score interval. A perfect (or zero) score has no finite Elo, so scores
  are kept within half a game of the ends (``1/(2n)``) before the map.
* Paired difference of two agents that played the same games (the same
  openings, colours and opponent): the mean of the game-by-game score
  differences, with a normal interval from their standard deviation. Pairing
  removes the openings' own share of the noise, so the interval is usually
  narrower than that of the difference of two independent matches.
* Elo table: the Bradley-Terry (logistic Elo) maximum-likelihood fit of every
  pairwise result, a draw being half a win, with a weak Gaussian prior (sd
  1,000 Elo) so that unbeaten agents stay finite; intervals from the inverse
  Hessian. The first agent is the anchor at 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Z95",
    "wilson",
    "score_interval",
    "elo_from_score",
    "elo_interval",
    "MatchStats",
    "match_stats",
    "fit_elo",
    "PairedDifference",
    "paired_difference",
]

Z95 = 1.959963984540054
_ELO = 400.0 / math.log(10.0)  # Elo points per unit of natural-log odds


def wilson(k: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``k / n`` (``(0, 1)`` when ``n`` is 0)."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def score_interval(wins: int, draws: int, losses: int, z: float = Z95) -> tuple[float, float]:
    """Interval of the mean game score: the Wilson interval of ``points / games``.

    Treating the score as a proportion is slightly conservative when there
    are draws (they make the per-game variance smaller than a coin's), and,
    unlike a normal interval, it does not collapse to a point for a perfect
    score.
    """
    n = wins + draws + losses
    return wilson(wins + 0.5 * draws, n, z)


def elo_from_score(score: float, games: int) -> float:
    """Elo difference for a score rate, the rate kept within ``1/(2 games)`` of 0 and 1."""
    eps = 0.5 / max(games, 1)
    s = min(max(score, eps), 1 - eps)
    return -400.0 * math.log10(1.0 / s - 1.0)


def elo_interval(wins: int, draws: int, losses: int, z: float = Z95) -> tuple[float, float]:
    """The score interval mapped to Elo."""
    n = wins + draws + losses
    lo, hi = score_interval(wins, draws, losses, z)
    return (elo_from_score(lo, n), elo_from_score(hi, n))


@dataclass(frozen=True)
class MatchStats:
    """A match from player A's side."""

    games: int
    wins: int
    draws: int
    losses: int
    score: float
    """Mean game score of A (0..1)."""
    score_ci: tuple[float, float]
    win_ci: tuple[float, float]
    draw_ci: tuple[float, float]
    loss_ci: tuple[float, float]
    elo: float
    """Elo difference A minus B."""
    elo_ci: tuple[float, float]
    """95% interval of ``elo`` (infinite when no game was played; ``None`` in :meth:`as_dict`)."""

    def as_dict(self) -> dict:
        return {
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.score,
            "score_ci": list(self.score_ci),
            "win_ci": list(self.win_ci),
            "draw_ci": list(self.draw_ci),
            "loss_ci": list(self.loss_ci),
            "elo": self.elo if math.isfinite(self.elo) else None,
            "elo_ci": [x if math.isfinite(x) else None for x in self.elo_ci],
        }


def match_stats(wins: int, draws: int, losses: int) -> MatchStats:
    """Every statistic of a match result."""
    n = wins + draws + losses
    score = (wins + 0.5 * draws) / n if n else 0.5
    return MatchStats(
        games=n,
        wins=wins,
        draws=draws,
        losses=losses,
        score=score,
        score_ci=score_interval(wins, draws, losses),
        win_ci=wilson(wins, n),
        draw_ci=wilson(draws, n),
        loss_ci=wilson(losses, n),
        elo=elo_from_score(score, n) if n else 0.0,
        elo_ci=elo_interval(wins, draws, losses) if n else (-math.inf, math.inf),
    )


@dataclass(frozen=True)
class PairedDifference:
    """How B scored against A on the same games (see :func:`paired_difference`)."""

    games: int
    mean: float
    """Mean of ``b - a`` over the games: B's match score minus A's."""
    ci: tuple[float, float]
    """95% interval of ``mean``."""
    better: int
    """Games where B scored more than A."""
    worse: int
    """Games where B scored less than A."""

    def as_dict(self) -> dict:
        """Plain data for JSON: ``games``, ``mean``, ``ci`` (a list), ``better``, ``worse``."""
        return {"games": self.games, "mean": self.mean, "ci": list(self.ci), "better": self.better, "worse": self.worse}


def paired_difference(a: Sequence[float], b: Sequence[float], z: float = Z95) -> PairedDifference:
    """B's score minus A's, game by game, where game ``i`` of both had the same opening, colours and
    opponent. ``ValueError`` when the two have different lengths or no games."""
    if len(a) != len(b) or not len(a):
        raise ValueError(f"paired scores need the same games on both sides, got {len(a)} and {len(b)}")
    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    n = len(d)
    mean = float(d.mean())
    half = z * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    return PairedDifference(n, mean, (mean - half, mean + half), int((d > 0).sum()), int((d < 0).sum()))


def fit_elo(
    n_players: int, results: Sequence[tuple[int, int, float, int]], prior_sd: float = 1000.0, z: float = Z95
) -> tuple[np.ndarray, np.ndarray]:
    """Fit Elo ratings to pairwise results; return ``(ratings, half_widths)``.

    ``results`` holds ``(i, j, score_of_i, games)``: player ``i`` scored
    ``score_of_i`` points (wins + draws/2) in ``games`` games against ``j``.
    Player 0 is fixed at 0; ``half_widths[k]`` is the 95% interval half-width
    of ``ratings[k]`` relative to player 0 (0 for player 0 itself).
    """
    if n_players < 1:
        raise ValueError("fit_elo needs at least one player")
    for i, j, s, n in results:
        if not (0 <= i < n_players and 0 <= j < n_players and i != j and 0 <= s <= n):
            raise ValueError(f"bad result ({i}, {j}, {s}, {n}) for {n_players} players")
    free = n_players - 1
    theta = np.zeros(n_players)  # natural-log-odds units
    tau = 1.0 / (prior_sd / _ELO) ** 2
    hess = np.zeros((free, free))
    for _ in range(100):
        grad = np.zeros(n_players)
        h = np.zeros((n_players, n_players))
        for i, j, s, n in results:
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            g = s - n * p
            grad[i] += g
            grad[j] -= g
            w = n * p * (1 - p)
            h[i, i] += w
            h[j, j] += w
            h[i, j] -= w
            h[j, i] -= w
        grad -= tau * theta
        h += tau * np.eye(n_players)
        if free == 0:
            break
        hess = h[1:, 1:]
        step = np.linalg.solve(hess, grad[1:])
        theta[1:] += step
        if np.max(np.abs(step)) < 1e-10:
            break
    ratings = theta * _ELO
    half = np.zeros(n_players)
    if free:
        cov = np.linalg.inv(hess)
        half[1:] = z * np.sqrt(np.diag(cov)) * _ELO
    return ratings, half
