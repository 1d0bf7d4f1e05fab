"""Checkers and draughts as an RLlib ``MultiAgentEnv`` with action masks (RLlib's new API stack).

    >>> from checkers_env.rllib import CheckersMultiAgentEnv, register      # doctest: +SKIP
    >>> register()                           # register_env("checkers_env", ...)  # doctest: +SKIP
    >>> config = PPOConfig().environment("checkers_env", env_config={"variant": "russian", "max_moves": 150})
    ...                                                                     # doctest: +SKIP

This is the only module of the env layer that imports Ray (``pip install
'checkers-env[distributed]'``); importing :mod:`checkers_env` does not load it.

**Agents.** ``"player_0"`` moves first in the variant, ``"player_1"``
second, as in the PettingZoo env (:mod:`checkers_env.aec`), which this
class drives: the rules, the leg actions and the observation planes are
that env's.

**Turns.** Only the agent to move gets an observation: ``reset`` and every
``step`` return a one-entry observation dict, and ``step`` expects the
action of that agent only. An action is one leg, so an agent in the middle
of a multi-leg capture is asked again (the same agent gets the next
observation). When the game ends, both agents get their last observation
(RLlib needs it to bootstrap a truncated agent's value) and their reward.

**Spaces** (RLlib's action-masking convention): each agent observes
``Dict({"observations": Box(0, 1, (8, N, N), float32), "action_mask": Box(0, 1, (A,), float32)})``
with ``A`` = 896 on 8x8, 1800 on 10x10, and acts in ``Discrete(A)``. The
mask is 1 exactly for the legal legs (all zeros in a final observation).
An action outside the mask ends the game: -1 to its author, 0 to the other
(PettingZoo's rule for classic games, and what RLlib's env check, which
steps an unmasked random action, needs); mask the logits, as RLlib's
action-masking RLModule does, and it never happens.

**Rewards.** +1 to the winner and -1 to the loser when the game ends, 0 to
both on a draw; 0 at every other step. The variant's draw rule ends the
game as a termination, the ``max_moves`` cap (whole moves) as a
truncation of both agents.

``env_config`` keys: ``variant`` (default ``"american"``), ``max_moves``
(default None: no cap) and any rule field to override (``forced_capture``,
...).
"""

from __future__ import annotations

import numpy as np

from .core.extras import missing

try:
    from gymnasium import spaces
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.tune.registry import register_env
except ImportError as exc:
    raise missing(exc.name.split(".")[0] if exc.name else "ray", "the RLlib environment", exc) from exc

from .aec import raw_env
from .core.variants import Rules

__all__ = ["CheckersMultiAgentEnv", "register", "ENV_NAME"]

ENV_NAME = "checkers_env"
"""The name :func:`register` gives the env in RLlib's (Tune's) registry."""


class CheckersMultiAgentEnv(MultiAgentEnv):
    """One game at a time between ``player_0`` and ``player_1``; see the module docstring.

    Args:
        variant: variant name or :class:`~checkers_env.core.Rules`.
        max_moves: truncate the game after this many whole moves (None: no cap).
        **rule_overrides: rule fields to override.

    ``reset(options={"fen": ...})`` starts from a position.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"]}

    def __init__(self, variant: str | Rules = "american", max_moves: int | None = None, render_mode: str | None = None,
                 **rule_overrides):  # fmt: skip
        super().__init__()
        self.game = raw_env(variant, render_mode=render_mode, max_moves=max_moves, **rule_overrides)
        self.rules = self.game.rules
        self.render_mode = render_mode
        self.agents = list(self.game.possible_agents)
        self.possible_agents = list(self.game.possible_agents)
        inner = self.game.observation_space(self.agents[0])
        n = self.game.action_space(self.agents[0]).n
        observation = spaces.Dict(
            {
                "observations": inner["observation"],
                "action_mask": spaces.Box(low=0.0, high=1.0, shape=(n,), dtype=np.float32),
            }
        )
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        self._over = True  # until reset

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        seen = self.game.observe(agent)
        return {"observations": seen["observation"], "action_mask": seen["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new game: the observation of the agent to move (the position is fixed; ``seed`` is accepted
        for the API and seeds nothing else). A position that is already over is refused."""
        self.game.reset(seed=seed, options=options)
        if self.game.terminations[self.game.agent_selection]:
            raise ValueError("the start position is already over: nothing to play")
        self._over = False
        agent = self.game.agent_selection
        return {agent: self._observe(agent)}, {agent: {}}

    def step(self, action_dict: dict):
        if self._over:
            raise ValueError("the game is over: call reset() before step()")
        mover = self.game.agent_selection
        if mover not in action_dict:
            raise ValueError(f"it is {mover}'s turn, but the actions are for {sorted(action_dict)}")
        action = int(action_dict[mover])
        if action not in self.game.legal_actions():
            rewards = {a: -1.0 if a == mover else 0.0 for a in self.possible_agents}
            return self._end(rewards, terminated=True, result={mover: f"illegal action {action}"})
        self.game.step(action)
        terminated = any(self.game.terminations.values())
        truncated = any(self.game.truncations.values())
        if terminated or truncated:
            rewards = {a: float(self.game.rewards[a]) for a in self.possible_agents}
            return self._end(rewards, terminated)
        agent = self.game.agent_selection
        done = {mover: False, "__all__": False}
        return {agent: self._observe(agent)}, {mover: 0.0}, done, dict(done), {agent: {}}

    def _end(self, rewards: dict[str, float], terminated: bool, result: dict[str, str] | None = None):
        """The last step: both agents' final observations and rewards."""
        self._over = True
        observations = {a: self._observe(a) for a in self.possible_agents}
        if terminated:
            for a in self.possible_agents:  # a final observation has no legal action
                observations[a]["action_mask"][:] = 0.0
        flags = {a: terminated for a in self.possible_agents}
        terminateds = {**flags, "__all__": terminated}
        truncateds = {**{a: not terminated for a in self.possible_agents}, "__all__": not terminated}
        infos = {a: {"result": (result or {}).get(a) or (_result(rewards[a]) if terminated else "truncated")}
                 for a in self.possible_agents}  # fmt: skip
        return observations, rewards, terminateds, truncateds, infos

    def render(self):
        """The committed position as text (``"ansi"``) or an image (``"rgb_array"``)."""
        return self.game.render()

    def close(self) -> None:
        self.game.close()


def _result(reward: float) -> str:
    return "win" if reward > 0 else ("loss" if reward < 0 else "draw")


def register(name: str = ENV_NAME) -> str:
    """Register :class:`CheckersMultiAgentEnv` with RLlib as ``name`` (``env_config`` becomes its keyword
    arguments); returns the name."""
    register_env(name, lambda config: CheckersMultiAgentEnv(**dict(config)))
    return name
