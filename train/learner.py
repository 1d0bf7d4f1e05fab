"""The learner protocol: what the run loop (:mod:`train.run`) asks of every learning algorithm.

A learner owns its whole algorithm (how it plays, what it stores, how it
updates its network); the run loop owns what every training run needs: the
run folder, the time budget, resuming, logs and the periodic evaluation. The
loop never branches on the algorithm: it calls these methods, and each
algorithm registers its learner class in :data:`LEARNERS` under its name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import torch

    from agents.base import Agent


__all__ = ["Learner", "LEARNERS", "learner_class"]


class Learner(Protocol):
    """One learning algorithm, set up for a run (constructed as ``Learner(rules, cfg, device, run_dir, backend)``;
    ``backend`` (:mod:`train.backend`) is where it may play games on other processes or machines, or None
    for a local one of its own)."""

    algo: str
    """The algorithm's name (``cfg.algo``)."""

    def iterate(self, progress: bool, budget_used: float = 0.0) -> dict[str, float]:
        """Play and learn one iteration; returns its statistics (one row of ``train.csv``).

        ``budget_used`` is the share of the run's training budget already spent (0 to 1), for
        schedules that follow the budget (a learning rate decaying to the end of the run)."""
        ...

    @property
    def step(self) -> int:
        """Progress counter for logs (gradient steps, or iterations)."""
        ...

    def eval_agent(self, seed: int) -> Agent:
        """The agent the run is judged by (the best network so far), playing as it will be saved."""
        ...

    def default_opponents(self) -> list[str]:
        """Agent specs always met in evaluations, besides the configured ones (e.g. ``"random"``)."""
        ...

    def curve_targets(self) -> list[tuple[str, float]]:
        """The benchmark's targets for this learner, ``(opponent spec, score)`` (:mod:`train.targets`):
        the learning curve draws those of the opponents it is measured against."""
        ...

    def save_agents(self, run_dir: str, meta: dict) -> None:
        """Write the playable checkpoints (``best.pt``, and others the algorithm keeps) into ``run_dir``."""
        ...

    def state_dict(self) -> dict[str, object]:
        """Everything needed to resume, made of tensors, numbers, strings, lists and dicts only (it is
        loaded with ``torch.load(weights_only=True)``)."""
        ...

    def load_state_dict(self, state: dict[str, object]) -> None:
        """Restore :meth:`state_dict` output."""
        ...

    def weights(self) -> dict[str, torch.Tensor]:
        """The current network's weights (for checksums and checkpoints)."""
        ...

    def close(self) -> None:
        """Release worker processes and files."""
        ...


LEARNERS: dict[str, str] = {
    "alphazero": "train.alphazero.learner:AlphaZeroLearner",
    "ppo": "train.ppo:PPOLearner",
}
"""Learner classes by algorithm name, as ``"module:Class"`` (imported when a run starts)."""


def learner_class(algo: str) -> type:
    """The learner class of ``algo``; ``ValueError`` naming the known algorithms otherwise."""
    import importlib

    if algo not in LEARNERS:
        raise ValueError(f"unknown algo {algo!r}; known: {', '.join(LEARNERS)}")
    module, _, name = LEARNERS[algo].partition(":")
    return getattr(importlib.import_module(module), name)
