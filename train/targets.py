"""The scores the learning benchmark aims at: one table, read by the benchmark's verdicts and by the
target lines of every run's learning curve."""

from __future__ import annotations

__all__ = ["TARGETS", "targets_of"]

TARGETS = {
    ("american", "minimax:4"): 0.80,
    ("american", "minimax:6"): 0.50,
    ("international", "minimax:2"): 0.75,
    ("international", "minimax:4"): 0.50,
    ("russian", "minimax:2"): 0.75,
    ("ppo", "random"): 0.95,
}
"""Score aimed at, by (variant for AlphaZero, or the learner's name for PPO; opponent spec)."""


def targets_of(key: str) -> list[tuple[str, float]]:
    """``(opponent, score)`` of the targets of ``key`` (a variant, or ``"ppo"``), in table order."""
    return [(opponent, score) for (k, opponent), score in TARGETS.items() if k == key]
