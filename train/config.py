"""Typed configuration of ``python -m train.selfplay``.

Every field's docstring is its ``--help`` text (tyro reads them). Nested
settings come from the agents package (``--net.channels``, ``--mcts.simulations``,
``--selfplay.parallel-games``, ``--ppo.num-envs``), so one dataclass describes
each knob once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

from agents.alphazero import SelfPlayConfig
from agents.mcts import MCTSConfig
from agents.networks import NetConfig
from agents.ppo import PPOConfig

__all__ = ["TrainConfig", "ALGOS"]

ALGOS = ("alphazero", "ppo")


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
    """Torch CPU threads of the main process (training, evaluation); 0: one per usable core. Self-play workers
    use one each. Use 1 on a machine where other jobs keep cores busy."""
    selfplay_workers: int = 0
    """Processes playing the self-play games of an iteration (alphazero); 0: one per usable core; 1: play them in
    the main process."""
    net: NetConfig = field(default_factory=lambda: NetConfig(channels=32, blocks=3, value_hidden=64))
    """Network size."""
    mcts: MCTSConfig = field(default_factory=lambda: MCTSConfig(simulations=32, discount=0.99))
    """Search settings of self-play (alphazero)."""
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    """How self-play games are played (alphazero)."""
    games_per_iteration: int = 64
    """Self-play games between two training phases (alphazero)."""
    replay_capacity: int = 60_000
    """Positions kept in the replay buffer (alphazero)."""
    batch_size: int = 256
    """Positions per gradient step (alphazero)."""
    sample_reuse: float = 4.0
    """Gradient-step samples drawn per new position (alphazero)."""
    learning_rate: float = 2e-3
    """Adam step size (alphazero)."""
    weight_decay: float = 1e-4
    """L2 weight decay (alphazero)."""
    gate_games: int = 0
    """Games of the new network against the previous best after each iteration (0: every new network is accepted,
    as in AlphaZero; >0: AlphaGo Zero gating)."""
    gate_threshold: float = 0.55
    """Score the new network needs against the previous best to replace it (when gate_games > 0)."""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    """PPO settings (ppo)."""
    eval_every_minutes: float = 5.0
    """Training minutes between evaluations for the learning curve."""
    eval_games: int = 8
    """Games per opponent at each periodic evaluation (pairs with colours reversed)."""
    eval_opponents: tuple[str, ...] = ("minimax:2", "minimax:4")
    """Agent specs the learning curve is measured against (ppo also always meets random)."""
    eval_simulations: int = 64
    """MCTS simulations per searched leg when the alphazero agent is evaluated."""
    final_games: int = 20
    """Games per opponent in the final evaluation table (0 skips it)."""
    eval_max_moves: int = 200
    """Whole moves after which an evaluation game is a draw."""
    sample_games: int = 4
    """Self-play games per iteration written to samples.pdn."""
    progress: bool = True
    """Show tqdm progress bars."""

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first bad field."""
        from checkers_env.core.variants import get_rules

        get_rules(self.variant)  # UnknownVariantError lists the known names
        if self.algo not in ALGOS:
            raise ValueError(f"unknown algo {self.algo!r}; known: {', '.join(ALGOS)}")
        if self.minutes <= 0:
            raise ValueError(f"minutes must be positive, got {self.minutes}")
        for name in ("games_per_iteration", "replay_capacity", "batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("threads", "selfplay_workers"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 (one per usable core) or more, got {getattr(self, name)}")
        if self.eval_games < 0 or self.final_games < 0 or self.gate_games < 0:
            raise ValueError("eval_games, final_games and gate_games must not be negative")
        if self.eval_simulations < 2:
            raise ValueError(f"eval_simulations must be at least 2, got {self.eval_simulations}")

    def to_dict(self) -> dict:
        """Plain dict (for config.json)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TrainConfig:
        """Inverse of :meth:`to_dict`."""
        data = dict(data)
        data["net"] = NetConfig(**data["net"])
        data["mcts"] = MCTSConfig(**data["mcts"])
        data["selfplay"] = SelfPlayConfig(**data["selfplay"])
        data["ppo"] = PPOConfig(**data["ppo"])
        data["eval_opponents"] = tuple(data["eval_opponents"])
        return cls(**data)
