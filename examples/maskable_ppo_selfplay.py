"""MaskablePPO (sb3-contrib) in self-play against a pool of its past selves, on the batched vector env.

    python examples/maskable_ppo_selfplay.py --variant american --minutes 10 --out runs/maskable_ppo
    python -m train.evaluate --variant american --a runs/maskable_ppo/model.zip --b random --games 100
    python examples/maskable_ppo_selfplay.py --smoke          # a few seconds: the test suite runs this

The learner plays ``player_0`` in even games and ``player_1`` in odd ones of
an :class:`checkers_env.sb3.SB3VecEnv` (the compiled batch of games). Before
each rollout the opponent of every game is drawn from the pool: the random
player (played inside the compiled step) or a frozen copy of the learner's
policy from an earlier rollout (called once per round on every game waiting
for it). The saved ``model.zip`` is an agent spec for the arena.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass

from agents.runtime import tune_process


@dataclass
class Args:
    variant: str = "american"
    minutes: float = 10.0
    """training time (wall clock)"""
    num_envs: int = 64
    n_steps: int = 64
    """env steps per game per rollout"""
    max_moves: int = 150
    """whole moves after which a game is cut (a draw for the score)"""
    snapshot_every: int = 4
    """rollouts between two copies of the learner joining the pool"""
    pool_size: int = 8
    random_share: float = 0.25
    """share of rollouts played against the random player"""
    seed: int = 0
    out: str = "runs/maskable_ppo"
    smoke: bool = False


def parse_args(argv=None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in vars(Args()).items():
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, action="store_true")
        else:
            parser.add_argument(flag, type=type(default), default=default)
    args = Args(**vars(parser.parse_args(argv)))
    if args.smoke:  # a tiny budget: every line runs, nothing is learned
        args.minutes, args.num_envs, args.n_steps, args.snapshot_every = 0.05, 8, 16, 1
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    tune_process()  # passive OpenMP waiting, before torch loads
    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from checkers_env.sb3 import SB3VecEnv

    torch.set_num_threads(1)  # the env steps in this thread; one more torch thread would only contend
    rng = np.random.default_rng(args.seed)

    # The opponent starts as a callable (not the string "random") so that past selves can replace it.
    env = SB3VecEnv(args.variant, num_envs=args.num_envs, agent="alternate", max_moves=args.max_moves, seed=args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=1024,
        n_epochs=4,
        learning_rate=3e-4,
        gamma=0.99,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [256, 256]},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )

    def snapshot(policy):
        """A frozen copy of the policy's weights (a deepcopy would also copy tensors of the last forward pass)."""
        frozen = type(policy)(**policy._get_constructor_parameters())
        frozen.load_state_dict(policy.state_dict())
        frozen.set_training_mode(False)
        return frozen

    def frozen_self(policy):
        """A past self as a batched opponent: (observations, masks) -> actions, sampled from its policy."""

        def play(observations, masks):
            actions, _ = policy.predict(observations, action_masks=masks.astype(bool), deterministic=False)
            return np.asarray(actions, dtype=np.int64)

        return play

    class SelfPlay(BaseCallback):
        """Draws each rollout's opponent from the pool, adds snapshots, stops at the time budget."""

        def __init__(self):
            super().__init__()
            self.pool: list = []
            self.rollouts = 0
            self.deadline = time.monotonic() + 60 * args.minutes
            self.wins = self.games = 0

        def _on_rollout_start(self) -> None:
            if self.rollouts % args.snapshot_every == 0:
                self.pool = (self.pool + [snapshot(self.model.policy)])[-args.pool_size :]
            self.rollouts += 1
            if rng.random() < args.random_share or not self.pool:
                env.set_opponent("random")
            else:
                env.set_opponent(frozen_self(self.pool[rng.integers(len(self.pool))]))

        def _on_step(self) -> bool:
            for info, reward in zip(self.locals["infos"], self.locals["rewards"]):
                if "terminal_observation" in info:
                    self.games += 1
                    self.wins += reward > 0
            return time.monotonic() < self.deadline

        def _on_rollout_end(self) -> None:
            if self.rollouts % 10 == 0 and self.games:
                print(f"rollout {self.rollouts}: {self.num_timesteps} steps, learner won {self.wins}/{self.games}")
                self.wins = self.games = 0

    callback = SelfPlay()
    start = time.monotonic()
    model.learn(total_timesteps=10**10, callback=callback)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "model.zip")
    model.save(path)
    print(f"trained {model.num_timesteps} steps in {(time.monotonic() - start) / 60:.1f} min; saved {path}")

    # The saved model is an agent spec (agents.sb3_policy): the arena scores it against random play.
    from train.evaluate import main as arena

    games = 2 if args.smoke else 100
    arena(["--variant", args.variant, "--a", path, "--b", "random", "--games", str(games), "--seed", "0",
           "--workers", "1", "--quiet", "--json", os.path.join(args.out, "arena.json")])  # fmt: skip


if __name__ == "__main__":
    main()
