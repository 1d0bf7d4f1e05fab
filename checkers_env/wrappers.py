"""Single-agent Gymnasium view of a game: the learner plays one side, a fixed
opponent the other.

    >>> from checkers_env.wrappers import SingleAgentEnv
    >>> env = SingleAgentEnv("american", opponent=None, agent="player_0")
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, env.action_masks().shape
    ((8, 8, 8), (896,))

The learner sees the observation planes (observation.py) and gets its mask
from :meth:`SingleAgentEnv.action_masks` (what sb3-contrib's MaskablePPO
calls) and from ``info["action_mask"]``. One ``step`` is one leg of the
learner's move; the opponent's legs are played inside ``step``/``reset``
until it is the learner's turn again or the game ends. The reward is +1/-1/0
at the end from the learner's side.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .core.extras import missing

try:
    import gymnasium
except ImportError as exc:
    raise missing("gymnasium", "the single-agent Gymnasium environment", exc) from exc

from .aec import raw_env
from .core.variants import Rules

__all__ = ["SingleAgentEnv", "Opponent"]

Opponent = Callable[[dict], int]
"""A fixed player: given the AEC observation dict (``"observation"`` planes in
its own frame and ``"action_mask"``), return a legal action."""


class SingleAgentEnv(gymnasium.Env):
    """Gymnasium env in which the learner plays ``agent`` against ``opponent``.

    Args:
        variant: variant name or :class:`~checkers_env.core.Rules`.
        opponent: a callable ``opponent(observation_dict) -> action``; None
            plays uniformly random legal actions (seeded by ``reset(seed=)``).
        agent: ``"player_0"`` (moves first), ``"player_1"``, or ``"random"``
            (a side drawn at each reset).
        max_moves: truncate after this many whole moves (both sides).
        render_mode: as the AEC env (``"ansi"``, ``"rgb_array"``, ``"human"``).
        **rule_overrides: rule fields to override.

    An illegal action by the learner raises :class:`~checkers_env.core.IllegalMoveError`;
    one by the opponent raises too (the opponent is part of the environment).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(self, variant: str | Rules = "american", opponent: Opponent | None = None, agent: str = "player_0",
                 max_moves: int | None = None, render_mode: str | None = None, **rule_overrides):  # fmt: skip
        if agent not in ("player_0", "player_1", "random"):
            raise ValueError(f"agent must be 'player_0', 'player_1' or 'random', got {agent!r}")
        if opponent is not None and not callable(opponent):
            raise ValueError(f"opponent must be a callable (observation dict -> action) or None, got {opponent!r}")
        self.game = raw_env(variant, render_mode=render_mode, max_moves=max_moves, **rule_overrides)
        """The underlying AEC env (a :class:`~checkers_env.aec.raw_env`)."""
        self.render_mode = render_mode
        self.opponent = opponent
        self.agent_choice = agent
        self.agent = "player_0" if agent == "random" else agent
        """The side the learner plays in the current game."""
        self.observation_space = self.game.observation_space("player_0")["observation"]
        self.action_space = self.game.action_space("player_0")

    def _random_opponent(self, observation: dict) -> int:
        return int(self.np_random.choice(np.flatnonzero(observation["action_mask"])))

    def _game_over(self) -> bool:
        return any(self.game.terminations.values()) or any(self.game.truncations.values())

    def _play_opponent(self) -> None:
        play = self.opponent or self._random_opponent
        while not self._game_over() and self.game.agent_selection != self.agent:
            observation = self.game.observe(self.game.agent_selection)
            self.game.step(int(play(observation)))

    def _observation(self) -> tuple[np.ndarray, dict]:
        observation = self.game.observe(self.agent)
        return observation["observation"], {"action_mask": observation["action_mask"]}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self.game.reset(seed=seed, options=options)
        if self.agent_choice == "random":
            self.agent = self.game.possible_agents[int(self.np_random.integers(2))]
        self._play_opponent()
        return self._observation()

    def step(self, action):
        if self._game_over():
            raise ValueError("the game is over: call reset()")
        self.game.step(action)
        self._play_opponent()
        observation, info = self._observation()
        reward = float(self.game.rewards.get(self.agent, 0))
        terminated = any(self.game.terminations.values())
        truncated = any(self.game.truncations.values()) and not terminated
        return observation, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False once the game is over)."""
        return self.game.observe(self.agent)["action_mask"].astype(bool)

    def render(self):
        return self.game.render()

    def close(self) -> None:
        self.game.close()
