"""A Stable-Baselines3 (sb3-contrib MaskablePPO) model as an agent: ``make_agent("runs/x/model.zip")``.

    python -m train.evaluate --variant american --a runs/maskable_ppo/model.zip --b random --games 100

The model must have been trained on this project's observation planes and
leg actions (the Gymnasium views: ``checkers/<variant>-v0``, ``make_vec``,
:class:`checkers_env.sb3.SB3VecEnv`). It plays leg by leg, as
:class:`~agents.learned.PolicyAgent` does: the most probable legal leg
(``:sample`` in the spec: legs sampled from the policy), one batched policy
call per leg for every game given to :meth:`~agents.base.Agent.select_moves`.
"""

from __future__ import annotations

import numpy as np

from checkers_env.core.extras import missing
from checkers_env.core.variants import Rules, get_rules
from checkers_env.encoding import num_actions
from checkers_env.game import LegGames
from checkers_env.observation import NUM_PLANES

from .base import AgentSpecError
from .learned import LegPlayer

__all__ = ["SB3PolicyAgent", "load_sb3_agent", "load_agent_spec"]


class SB3PolicyAgent(LegPlayer):
    """Plays a MaskablePPO policy: its most probable legal leg (``sample=True``: sampled with the agent's seed)."""

    def __init__(self, policy, variant: str | Rules, seed: int | None = None, sample: bool = False,
                 name: str = "maskable-ppo"):  # fmt: skip
        rules = get_rules(variant)
        size = rules.board_size
        shape = tuple(policy.observation_space.shape)
        if shape != (NUM_PLANES, size, size) or int(policy.action_space.n) != num_actions(size):
            raise ValueError(
                f"the policy was trained on observations {shape} and {policy.action_space.n} actions; "
                f"variant {rules.name!r} has {(NUM_PLANES, size, size)} and {num_actions(size)}"
            )
        super().__init__(rules, seed, name)
        policy.set_training_mode(False)
        self.policy = policy
        self.sample = sample

    def _choose(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        import torch

        with torch.inference_mode():
            x, _ = self.policy.obs_to_tensor(np.ascontiguousarray(obs, dtype=np.float32))
            dist = self.policy.get_distribution(x, action_masks=masks.astype(bool))
            if not self.sample:
                return dist.get_actions(deterministic=True).cpu().numpy()
            probs = dist.distribution.probs.cpu().numpy().astype(np.float64)
        return np.array([self.rng.choice(len(p), p=p / p.sum()) for p in probs])

    def _pick(self, games: LegGames, thinking: np.ndarray, deadline: float | None) -> dict[int, int]:
        rows = np.flatnonzero(thinking)
        actions = self._choose(games.obs[rows], games.masks[rows])
        return {int(k): int(a) for k, a in zip(rows, actions)}

    def select_action(self, observation: np.ndarray, mask: np.ndarray) -> int:
        if not np.asarray(mask).any():
            raise ValueError("the action mask has no legal action")
        return int(self._choose(np.asarray(observation)[None], np.asarray(mask)[None])[0])


def load_sb3_agent(path: str, variant: str | Rules = "american", seed: int | None = None,
                   sample: bool = False) -> SB3PolicyAgent:  # fmt: skip
    """The agent of a MaskablePPO model saved with ``model.save(path)``."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        raise missing("sb3_contrib", "Stable-Baselines3 model agents", exc) from exc
    model = MaskablePPO.load(path, device="cpu")
    return SB3PolicyAgent(model.policy, variant, seed=seed, sample=sample, name=str(path))


def load_agent_spec(path: str, options: str, variant: str, seed: int | None) -> SB3PolicyAgent:
    """The ``.zip`` spec loader (:func:`agents.base.register_agent_loader`): ``PATH.zip[:sample]``."""
    if options not in ("", "sample"):
        raise AgentSpecError(f"bad option {options!r} in {path}:{options}; use PATH.zip or PATH.zip:sample")
    try:
        return load_sb3_agent(path, variant, seed=seed, sample=options == "sample")
    except AgentSpecError:
        raise
    except ImportError:
        raise
    except Exception as exc:  # a file that is not a MaskablePPO model, or one for another board
        raise AgentSpecError(f"cannot load Stable-Baselines3 model {path!r} for variant {variant!r}: {exc}") from exc
