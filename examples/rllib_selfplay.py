"""RLlib's PPO learns checkers in self-play against frozen copies of itself, with masked actions.

    python examples/rllib_selfplay.py --smoke                        # a few tiny iterations (a minute on 2 cores)
    python examples/rllib_selfplay.py --variant russian --iterations 200 --env-runners 4
    python examples/rllib_selfplay.py --ray-address HEAD:6379 --env-runners 32   # on a Ray cluster

Needs the distributed extra (``pip install -e '.[distributed]'``, which brings
Ray's RLlib and its torch). The pieces:

* the env: :class:`checkers_env.rllib.CheckersMultiAgentEnv`, registered
  as ``"checkers_env"`` (observations ``{"observations", "action_mask"}``,
  only the player to move acts, one action per leg);
* the model: :class:`MaskedConvModule`, a small convolutional
  policy-value RLModule that adds a huge negative number to the logits of
  illegal legs, so they are never sampled and get no gradient (the approach
  of RLlib's action-masking example);
* the league: the trained module ``"main"`` plays every game against a
  frozen snapshot ``"main_v<k>"`` (chosen uniformly per game, ``main`` on
  either side); :class:`SelfPlayLeague` adds a snapshot of ``main`` every
  ``--snapshot-every`` iterations; only ``main`` is trained.

Each iteration prints the mean final reward of ``main`` (+1 win, 0 draw or
truncation, -1 loss) over the last 100 finished games; ``--smoke`` ends
with ``mean reward of main: <value>``.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import zlib

from agents.runtime import tune_process, usable_cores
from checkers_env.core.extras import require

__all__ = ["MaskedConvModule", "SelfPlayLeague", "LeagueMapping", "build_config", "main"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ray = require("ray", "the RLlib self-play example")
require("torch", "the RLlib self-play example")

import torch  # noqa: E402
from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402
from ray.rllib.callbacks.callbacks import RLlibCallback  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.apis import ValueFunctionAPI  # noqa: E402
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.core.rl_module.torch import TorchRLModule  # noqa: E402
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS  # noqa: E402
from torch import nn  # noqa: E402

from checkers_env.rllib import ENV_NAME, register  # noqa: E402

MASKED = -3.4e38
"""Added to the logit of an illegal leg (float32's lowest value: its probability is 0, and an all-illegal
final observation still gives finite logits)."""


class MaskedConvModule(TorchRLModule, ValueFunctionAPI):
    """Policy and value from the observation planes; illegal legs masked out of the policy.

    ``model_config``: ``channels`` (of the two 3x3 convolutions, default 32), ``hidden`` (of the value
    head, default 64).
    """

    def setup(self):
        planes, size, _ = self.observation_space["observations"].shape
        channels = int(self.model_config.get("channels", 32))
        hidden = int(self.model_config.get("hidden", 64))
        self.trunk = nn.Sequential(
            nn.Conv2d(planes, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )
        features = channels * size * size
        self.policy = nn.Linear(features, self.action_space.n)
        self.value = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        nn.init.zeros_(self.policy.weight)  # a uniform policy over the legal legs to start with
        nn.init.zeros_(self.policy.bias)

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        features = self.trunk(obs["observations"])
        # 0 for a legal leg, MASKED for an illegal one (log of the mask, clamped)
        mask = torch.clamp(torch.log(obs["action_mask"]), min=MASKED)
        return {Columns.ACTION_DIST_INPUTS: self.policy(features) + mask, Columns.EMBEDDINGS: features}

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:
            embeddings = self.trunk(batch[Columns.OBS]["observations"])
        return self.value(embeddings).squeeze(-1)


class LeagueMapping:
    """Agent to module: ``main`` on one side (by the episode's id), a snapshot chosen by the id on the other."""

    def __init__(self, snapshots: tuple[str, ...]):
        self.snapshots = tuple(snapshots)

    def __call__(self, agent_id, episode, **kwargs) -> str:
        key = zlib.crc32(str(episode.id_).encode())
        if int(agent_id[-1]) == key % 2:
            return "main"
        return self.snapshots[(key // 2) % len(self.snapshots)]


def _spec(model: dict) -> RLModuleSpec:
    return RLModuleSpec(module_class=MaskedConvModule, model_config=dict(model))


class SelfPlayLeague(RLlibCallback):
    """Keeps the league: ``main_v0`` starts as a copy of ``main``; every ``snapshot_every`` iterations a
    new frozen copy joins; logs the final reward of ``main`` in each finished game (``main_reward``)."""

    def __init__(self, snapshot_every: int = 5):
        super().__init__()
        self.snapshot_every = snapshot_every
        self.snapshots = ["main_v0"]

    @staticmethod
    def _copy_main(algorithm, module_id: str) -> None:
        """Give ``module_id`` the weights of ``main``, on the learner and on every env runner."""
        state = algorithm.get_module("main").get_state()
        algorithm.set_state({"learner_group": {"learner": {"rl_module": {module_id: state}}}})
        algorithm.env_runner_group.sync_weights(
            policies=[module_id], from_worker_or_learner_group=algorithm.learner_group, inference_only=True
        )

    def on_algorithm_init(self, *, algorithm, metrics_logger=None, **kwargs) -> None:
        self._copy_main(algorithm, "main_v0")

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        for agent_id, single in episode.agent_episodes.items():
            if episode.module_for(agent_id) == "main" and len(single) > 0:
                reward = float(single.get_rewards(-1))
                metrics_logger.log_value("main_reward", reward, reduce="mean", window=100)

    def on_train_result(self, *, algorithm, metrics_logger=None, result, **kwargs) -> None:
        if algorithm.iteration % self.snapshot_every == 0:
            module_id = f"main_v{len(self.snapshots)}"
            self.snapshots.append(module_id)
            algorithm.add_module(
                module_id=module_id,
                module_spec=RLModuleSpec.from_module(algorithm.get_module("main")),
                new_agent_to_module_mapping_fn=LeagueMapping(tuple(self.snapshots)),
            )
            self._copy_main(algorithm, module_id)
        result["league_size"] = len(self.snapshots)


def build_config(args: argparse.Namespace) -> PPOConfig:
    """PPO on the registered env with the masking module and the self-play league."""
    model = {"channels": args.channels, "hidden": 64}
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config={"variant": args.variant, "max_moves": args.max_moves})
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .multi_agent(
            policies={"main", "main_v0"},
            policy_mapping_fn=LeagueMapping(("main_v0",)),
            policies_to_train=["main"],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: _spec(model) for m in ("main", "main_v0")}))
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            lr=args.lr,
            entropy_coeff=0.01,
        )
        .callbacks(functools.partial(SelfPlayLeague, snapshot_every=args.snapshot_every))
        .debugging(seed=args.seed)
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python examples/rllib_selfplay.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="american", help="rule variant (default american)")
    parser.add_argument("--iterations", type=int, default=100, help="training iterations (default 100)")
    parser.add_argument("--snapshot-every", type=int, default=5, help="iterations between snapshots of main")
    parser.add_argument("--env-runners", type=int, default=0, help="Ray actors sampling games (0: this process)")
    parser.add_argument("--batch", type=int, default=4000, help="env steps (legs) per iteration")
    parser.add_argument("--minibatch", type=int, default=256, help="PPO minibatch size")
    parser.add_argument("--epochs", type=int, default=4, help="PPO epochs per iteration")
    parser.add_argument("--lr", type=float, default=3e-4, help="learning rate")
    parser.add_argument("--max-moves", type=int, default=150, help="whole moves after which a game is truncated")
    parser.add_argument("--channels", type=int, default=32, help="channels of the module's convolutions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ray-address", default=None, help="Ray cluster to join (default: a local Ray)")
    parser.add_argument("--checkpoint", default=None, help="folder to save the algorithm in at the end")
    parser.add_argument("--smoke", action="store_true", help="3 tiny iterations (a snapshot each): a quick check")
    args = parser.parse_args(argv)
    if args.smoke:
        args.iterations, args.batch, args.minibatch, args.epochs = 3, 256, 64, 1
        args.snapshot_every, args.max_moves, args.channels = 1, 60, 8
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tune_process(torch_threads=1)
    # Ray's workers import this project from the folder this script belongs to (as the training backend does)
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    runtime_env = {"env_vars": {"PYTHONPATH": path}}
    if args.ray_address:
        ray.init(address=args.ray_address, runtime_env=runtime_env)
    else:
        ray.init(address="local", num_cpus=usable_cores(), include_dashboard=False, runtime_env=runtime_env)
    register()
    algo = build_config(args).build_algo()
    reward = float("nan")
    try:
        for _ in range(args.iterations):
            result = algo.train()
            runners = result.get(ENV_RUNNER_RESULTS, {})
            reward = float(runners.get("main_reward", float("nan")))
            print(f"iteration {algo.iteration}: mean reward of main {reward:+.3f} (last 100 games), "
                  f"{runners.get('num_episodes_lifetime', 0)} games so far, {result['league_size']} snapshots",
                  flush=True)  # fmt: skip
        if args.checkpoint:
            print(f"saved to {algo.save(os.path.abspath(args.checkpoint))}")
    finally:
        algo.stop()
        ray.shutdown()
    print(f"mean reward of main: {reward:+.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
