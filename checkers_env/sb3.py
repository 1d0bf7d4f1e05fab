"""Stable-Baselines3 ``VecEnv`` over the batched single-agent view, for sb3-contrib's MaskablePPO.

    >>> from sb3_contrib import MaskablePPO
    >>> from checkers_env.sb3 import SB3VecEnv
    >>> venv = SB3VecEnv("american", num_envs=64, opponent="random", agent="alternate", seed=0)
    >>> model = MaskablePPO("MlpPolicy", venv, n_steps=64)       # doctest: +SKIP
    >>> model.learn(10_000)                                         # doctest: +SKIP

:class:`SB3VecEnv` wraps a :class:`~checkers_env.gym_vector.GymVectorEnv`
(build one from its arguments, or pass one as ``venv=``) and speaks SB3's
protocol: ``reset()`` returns the observations only, ``step_wait()`` returns
``(obs, rewards, dones, infos)`` with one info dict per game, and a game that
ended carries ``infos[i]["terminal_observation"]`` (its last observation; the
returned one is already the next game's first) and
``infos[i]["TimeLimit.truncated"]`` (True when it was cut by ``max_moves``), as
SB3's own vector envs report. MaskablePPO reads the masks through
``env_method("action_masks")`` (sb3-contrib's ``get_action_masks``): here that
is one call on the batch, split into one row per game.

The opponent can be swapped between rollouts with :meth:`SB3VecEnv.set_opponent`
(a pool of past selves, see ``examples/maskable_ppo_selfplay.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .core.extras import missing

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn
except ImportError as exc:
    raise missing("stable_baselines3", "the Stable-Baselines3 vector env adapter", exc) from exc

from .gym_vector import GymVectorEnv

__all__ = ["SB3VecEnv"]


class SB3VecEnv(VecEnv):
    """SB3 ``VecEnv`` of :class:`~checkers_env.gym_vector.GymVectorEnv` (module docstring).

    Args:
        variant: variant name or :class:`~checkers_env.core.Rules` (ignored when ``venv`` is given).
        num_envs: number of games.
        venv: an existing :class:`~checkers_env.gym_vector.GymVectorEnv` to wrap.
        **kwargs: passed to :class:`~checkers_env.gym_vector.GymVectorEnv` (``opponent``,
            ``agent``, ``max_moves``, ``seed``, rule overrides, ...).
    """

    def __init__(self, variant: Any = "american", num_envs: int = 1, venv: GymVectorEnv | None = None, **kwargs):
        if venv is None:
            venv = GymVectorEnv(variant, num_envs=num_envs, copy=False, **kwargs)
        elif kwargs:
            raise ValueError(f"give either venv or the arguments to build one, not both (got {sorted(kwargs)})")
        self.venv = venv
        """The wrapped Gymnasium vector env."""
        self._actions: np.ndarray | None = None
        self._next_seed: int | None = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    # ---------------------------------------------------------------- VecEnv protocol

    def reset(self):
        obs, infos = self.venv.reset(seed=self._next_seed)
        self._next_seed = None
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return np.array(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        obs, rewards, terminations, truncations, infos = self.venv.step(self._actions)
        self._actions = None
        dones = terminations | truncations
        out: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final_obs = infos["final_obs"]
            for k in np.flatnonzero(dones):  # finished games only: a handful per step
                out[k]["terminal_observation"] = final_obs[k]
                out[k]["TimeLimit.truncated"] = bool(truncations[k] and not terminations[k])
                if "illegal_action" in infos:
                    out[k]["illegal_action"] = bool(infos["illegal_action"][k])
        return np.array(obs), np.array(rewards, dtype=np.float32), dones.copy(), out

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the games at the next :meth:`reset` (one seed for the batch, as the games draw from one sequence)."""
        self._next_seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The vector env's attribute, once per index (the games share one env)."""
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the vector env (for every game: they share it)."""
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """Call a method of the vector env once; a result with one row per game is split into rows.

        ``env_method("action_masks")`` is sb3-contrib's way to the masks: ``bool[A]`` per game.
        """
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        index = list(self._get_indices(indices))
        if isinstance(result, np.ndarray) and result.ndim >= 1 and result.shape[0] == self.num_envs:
            return list(result[index])
        return [result for _ in index]

    def env_is_wrapped(self, wrapper_class, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    # ---------------------------------------------------------------- helpers

    def action_masks(self) -> np.ndarray:
        """``bool[num_envs, A]``: the learner's legal legs in every game."""
        return self.venv.action_masks()

    def set_opponent(self, opponent: Any, seed: int | None = None) -> None:
        """Play the next steps against ``opponent`` (:meth:`GymVectorEnv.set_opponent`)."""
        self.venv.set_opponent(opponent, seed)
