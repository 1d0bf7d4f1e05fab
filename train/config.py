"""Typed configuration of a training run (``python -m train.selfplay`` / ``checkers-train``).

Every field's docstring is its ``--help`` text (tyro reads them). Each
learner's settings are one nested dataclass of its own (``--alphazero.*``,
``--ppo.*``), and so is the network (``--net.*``), so one dataclass
describes each knob once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

from agents.mcts import MCTSConfig
from agents.networks import NetConfig

from .alphazero.config import AlphaZeroConfig, SelfPlayConfig
from .arena import MATCH_MOVE_CAP
from .learner import LEARNERS
from .ppo import PPOConfig

__all__ = ["TrainConfig", "ALGOS"]

ALGOS = tuple(LEARNERS)


@dataclass
class TrainConfig:
    """Self-play training of one variant; the defaults make a ten-minute american run on a 2-core CPU."""

    variant: str = "american"
    """Rule variant to train on (american, russian, brazilian, spanish, italian, czech, international, pool)."""
    algo: Literal["alphazero", "ppo"] = "alphazero"
    """Learner: alphazero (MCTS self-play) or ppo (masked PPO against a pool of its past selves)."""
    minutes: float = 10.0
    """Training budget in wall-clock minutes (self-play and gradient steps; evaluations are not counted)."""
    run_dir: str | None = None
    """Run folder; default a fresh timestamped folder under runs/. An existing folder with train_state.pt resumes."""
    seed: int = 0
    """Seed of every random generator of the run."""
    device: str = "auto"
    """Torch device: auto (CUDA when present, else CPU), cpu, cuda, cuda:1, ..."""
    threads: int = 0
    """Torch CPU threads of the training process; 0: one per usable core. Self-play workers use one each.
    Use 1 on a machine where other jobs keep cores busy."""
    net: NetConfig = field(default_factory=lambda: NetConfig(channels=32, blocks=3, value_hidden=64))
    """Network size."""
    alphazero: AlphaZeroConfig = field(default_factory=AlphaZeroConfig)
    """AlphaZero settings (algo alphazero)."""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    """PPO settings (algo ppo)."""
    eval_every_minutes: float = 5.0
    """Training minutes between evaluations for the learning curve."""
    eval_games: int = 8
    """Games per opponent at each periodic evaluation (pairs with colours reversed)."""
    eval_opponents: tuple[str, ...] = ("minimax:2", "minimax:4")
    """Agent specs the learning curve is measured against (ppo also always meets random)."""
    keep_curve_checkpoints: bool = True
    """Keep the agent of each learning-curve point as ``curve/step-NNNNNNN.pt`` (a copy of ``best.pt`` when
    it was measured, a few hundred kB), so that the curve can be measured again afterwards with more games
    or another search (``python -m train.curve RUN``) without training again."""
    final_games: int = 20
    """Games per opponent in the final evaluation table (0 skips it)."""
    eval_max_moves: int = MATCH_MOVE_CAP
    """Whole moves after which an evaluation game is a draw (the arena's safety net, :data:`train.arena.MATCH_MOVE_CAP`)."""
    sample_games: int = 4
    """Self-play games per iteration written to samples.pdn (alphazero)."""
    progress: bool = True
    """Show progress (bars on a terminal, periodic lines otherwise)."""
    backend: Literal["local", "ray"] = "local"
    """Where self-play and evaluation games run: local (processes on this machine) or ray (actors on a Ray
    cluster, one per CPU it offers; the learner stays in this process). ray needs the distributed extra."""
    ray_address: str | None = None
    """Ray cluster to join with --backend ray (HOST:PORT or auto); default: RAY_ADDRESS if set, else a local
    Ray started for the run."""

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first bad field."""
        from checkers_env.core.variants import get_rules

        get_rules(self.variant)  # UnknownVariantError lists the known names
        if self.algo not in ALGOS:
            raise ValueError(f"unknown algo {self.algo!r}; known: {', '.join(ALGOS)}")
        if not self.minutes > 0:
            raise ValueError(f"minutes must be positive, got {self.minutes}")
        if self.threads < 0:
            raise ValueError(f"threads must be 0 (one per usable core) or more, got {self.threads}")
        if self.eval_games < 0 or self.final_games < 0 or self.sample_games < 0:
            raise ValueError("eval_games, final_games and sample_games must not be negative")
        if self.eval_max_moves < 1 or not self.eval_every_minutes > 0:
            raise ValueError("eval_max_moves and eval_every_minutes must be positive")
        if self.backend not in ("local", "ray"):
            raise ValueError(f"unknown backend {self.backend!r}; known: local, ray")
        if self.ray_address is not None and self.backend != "ray":
            raise ValueError("ray_address is for --backend ray; add --backend ray or drop --ray-address")
        if self.backend == "ray":
            from checkers_env.core.extras import require

            require("ray", "--backend ray")  # MissingDependencyError naming the distributed extra
        self.alphazero.validate()

    def to_dict(self) -> dict:
        """Plain dict (for config.json)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TrainConfig:
        """Inverse of :meth:`to_dict`; ``ValueError`` naming the field for a dict that is not a config."""
        try:
            data = dict(data)
            data["net"] = NetConfig(**data["net"])
            az = dict(data["alphazero"])
            az["mcts"] = MCTSConfig(**az["mcts"])
            az["selfplay"] = SelfPlayConfig(**az["selfplay"])
            data["alphazero"] = AlphaZeroConfig(**az)
            data["ppo"] = PPOConfig(**data["ppo"])
            data["eval_opponents"] = tuple(data["eval_opponents"])
            return cls(**data)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a training configuration: {exc}") from None
