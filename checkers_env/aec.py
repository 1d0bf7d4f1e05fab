"""Checkers and draughts as a PettingZoo AEC environment.

    >>> import checkers_env.aec as ce
    >>> env = ce.env(variant="russian")
    >>> env.reset(seed=42)
    >>> for agent in env.agent_iter():
    ...     observation, reward, termination, truncation, info = env.last()
    ...     if termination or truncation:
    ...         action = None
    ...     else:
    ...         action = env.action_space(agent).sample(observation["action_mask"])
    ...     env.step(action)
    >>> env.close()

| Import             | `from checkers_env import env` (or `raw_env`)                  |
|--------------------|----------------------------------------------------------------|
| Actions            | Discrete                                                       |
| Parallel API       | No                                                             |
| Manual Control     | No                                                             |
| Agents             | `agents= ['player_0', 'player_1']`                             |
| Agents             | 2                                                              |
| Action Shape       | Discrete(896) on 8x8, Discrete(1800) on 10x10                  |
| Action Values      | Discrete(896) / Discrete(1800)                                 |
| Observation Shape  | (8, 8, 8) on 8x8, (8, 10, 10) on 10x10                         |
| Observation Values | [0, 1]                                                         |

``player_0`` is the side that moves first in the variant (Black in american
and pool, White elsewhere); ``player_1`` the other. The variant is chosen by
name (american, russian, brazilian, spanish, italian, czech, international,
pool; aliases such as "english") and rule fields can be overridden, e.g.
``env("american", forced_capture=False)``.

### Actions

An action is one *leg* (a step, or one jump of a capture):
``(from square, direction, distance)`` numbered in the frame of the player to
move (see :mod:`checkers_env.encoding` for the layout and its diagram). A
capture of several pieces takes several steps of the same agent: it keeps
``agent_selection`` until its move is complete. The action mask marks exactly
the legs that continue some legal whole move, so the variant's capture rules
(mandatory capture, most pieces, king first, ...) are enforced by the mask.

### Observation space

A dict: ``"observation"`` is ``float32[8, N, N]`` planes in the observer's own
frame (observation.py: own men, own kings, opponent men, opponent kings, the
piece that must continue, pieces captured so far in this move, draw counter,
move number) and ``"action_mask"`` is ``int8[num_actions]`` (all zeros for the
agent not to move).

### Rewards

+1 to the winner and -1 to the loser when a side cannot move; 0 to both on a
draw (the variant's draw rule, or the optional repetition rule). The draw
rule ends the game as a termination; the ``max_moves`` cap (whole moves since
reset) as a truncation. With :func:`env`, an illegal action ends the game
with -1 for the agent that made it (PettingZoo's ``TerminateIllegalWrapper``);
:class:`raw_env` raises :class:`~checkers_env.core.IllegalMoveError` (a
``ValueError``) naming the legal actions instead.

### Render modes

``"ansi"`` returns the text board, ``"rgb_array"`` an ``uint8[H, W, 3]``
image with the last move marked, ``"human"`` shows it in a pygame window.
Drawing happens only when :meth:`raw_env.render` is called, never in ``step``.

### Registry

``import checkers_env`` registers ``checkers/<variant>-v0`` for each named
variant (:mod:`checkers_env.registration`), so
``pettingzoo.make("aec", "checkers/russian-v0", max_moves=100)`` gives the
wrapped env :func:`env` (PettingZoo 1.26 and newer); keyword arguments pass
through to it.

### Version history

* v0: first release (checkers_env 0.1.0): eight variants, leg actions with
  exact masks, eight observation planes.
"""

from __future__ import annotations

import numpy as np

from .core.extras import missing

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.utils import EzPickle
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as exc:
    raise missing(exc.name.split(".")[0] if exc.name else "pettingzoo", "the PettingZoo environment", exc) from exc

from . import registration as _registration
from .core import movegen as mg
from .core.board import Board, Move
from .core.errors import IllegalMoveError
from .core.variants import Rules, get_rules
from .encoding import action_to_leg, num_actions
from .game import STEP_TERMINATED, STEP_TRUNCATED, LegGames, write_observation
from .observation import NUM_PLANES, PLY_SCALE

__all__ = ["env", "raw_env", "LegSpace", "ENV_NAME", "registered_ids"]

ENV_NAME = "checkers_v0"


class LegSpace(spaces.Discrete):
    """``Discrete(num_actions)`` whose masked :meth:`sample` is one pass over the mask.

    Gymnasium's ``Discrete.sample(mask)`` makes six passes over all 896 or 1800
    entries to check and read the mask; this one finds the legal actions once
    and checks only those. It accepts and rejects the same masks, returns
    ``start`` when no action is legal, and draws the same action from the same
    generator state, so seeded runs are unchanged.
    """

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None):
        if mask is None or probability is not None:
            return super().sample(mask, probability)
        assert isinstance(mask, np.ndarray), (
            f"The expected type of the sample mask is np.ndarray, actual type: {type(mask)}"
        )
        assert mask.dtype == np.int8, f"The expected dtype of the sample mask is np.int8, actual dtype: {mask.dtype}"
        assert mask.shape == (self.n,), (
            f"The expected shape of the sample mask is {(int(self.n),)}, actual shape: {mask.shape}"
        )
        legal = np.flatnonzero(mask)
        assert (mask[legal] == 1).all(), f"All values of the sample mask should be 0 or 1, actual values: {mask}"
        if legal.size == 0:
            return self.start
        # the draw Generator.choice(legal) makes, without its overhead
        return self.start + self.dtype.type(legal[self.np_random.integers(legal.size)])


def env(variant: str | Rules = "american", render_mode: str | None = None, max_moves: int | None = None,
        **rule_overrides) -> AECEnv:  # fmt: skip
    """The AEC env with PettingZoo's standard wrappers for classic games.

    An illegal action ends the game with -1 for its author; an action outside
    the action space fails an assertion; calls out of order raise.
    """
    e = raw_env(variant, render_mode=render_mode, max_moves=max_moves, **rule_overrides)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """The bare AEC env; see the module docstring. Illegal actions raise ``IllegalMoveError``.

    Args:
        variant: variant name or :class:`~checkers_env.core.Rules`.
        render_mode: None, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        max_moves: truncate the game after this many whole moves (None: no cap).
        **rule_overrides: rule fields to override.

    ``reset(options={"fen": ...})`` starts from a position instead of the
    variant's start position.
    """

    metadata = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": ENV_NAME,
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, variant: str | Rules = "american", render_mode: str | None = None,
                 max_moves: int | None = None, **rule_overrides):  # fmt: skip
        EzPickle.__init__(self, variant, render_mode, max_moves, **rule_overrides)
        super().__init__()
        self.rules: Rules = get_rules(variant, **rule_overrides)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if max_moves is not None and (
            isinstance(max_moves, bool) or not isinstance(max_moves, (int, np.integer)) or max_moves < 1
        ):
            raise ValueError(f"max_moves must be a positive integer or None, got {max_moves!r}")
        self.render_mode = render_mode
        self.max_moves = int(max_moves or 0)
        size = self.rules.board_size
        self._num_actions = num_actions(size)
        self._first = int(self.rules.first_player)
        self._game = LegGames(self.rules, 1, self.max_moves, ply_scale=self.max_moves or PLY_SCALE, track_moves=False)
        self._window = None

        self.agents = ["player_0", "player_1"]
        self.possible_agents = self.agents[:]
        obs_shape = (NUM_PLANES, size, size)
        self.action_spaces = {a: LegSpace(self._num_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=0.0, high=1.0, shape=obs_shape, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(self._num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._start = Board(self.rules)
        self._reset_game(self._start)

    # ---------------------------------------------------------------- spaces

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- state

    def _color_of(self, agent: str) -> int:
        return self.possible_agents.index(agent) ^ self._first

    def _agent_of(self, color: int) -> str:
        return self.possible_agents[color ^ self._first]

    def _reset_game(self, board: Board) -> None:
        self._game.load(0, board, episode_ply=0)
        self._leg_turn = int(self._game.to_move(0))
        self._last_move: tuple[np.ndarray, tuple[int, ...], int] | None = None
        self._move_start_state = board.state

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a game; ``seed`` seeds the action spaces' samplers (the start
        position is fixed); ``options={"fen": FEN}`` starts from that position.

        A position that is already over (the side to move cannot move, or the
        draw counter has run out) starts terminated: every agent's
        termination is True and ``infos[agent]["outcome"]`` says why.
        """
        board = self._start
        if options and options.get("fen") is not None:
            board = Board(self.rules, fen=options["fen"])
        if seed is not None:
            # Only the action spaces sample during play; seeding the observation
            # spaces too tripled the cost of a reset.
            for i, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + i)
        self._reset_game(board)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        over = self._game.is_over(0)
        self.terminations = {a: over for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if over:
            outcome = self._game.outcome(0)
            for a in self.agents:
                self.infos[a]["outcome"] = outcome
        self.agent_selection = self._agent_of(int(self._game.to_move(0)))

    # ------------------------------------------------------------ observing

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """Planes seen by ``agent`` and its mask (zeros unless it is to move)."""
        size = self.rules.board_size
        obs = np.zeros((NUM_PLANES, size, size), dtype=np.float32)
        mask = np.zeros(self._num_actions, dtype=np.int8)
        g = self._game
        write_observation(g.games[0], self._color_of(agent), g.params, g.tables, g.moves, g.ply_scale, obs, mask,
                          g.legal[0], self._num_actions)  # fmt: skip
        return {"observation": obs, "action_mask": mask}

    def legal_actions(self) -> list[int]:
        """The legal actions of the agent to move (empty once the game is over)."""
        return self._game.legal_actions(0)

    @property
    def board(self) -> Board:
        """A :class:`~checkers_env.core.Board` of the committed position (a new object;
        legs of a move in progress are not on it)."""
        return self._game.board(0)

    @property
    def legs_taken(self) -> list[int]:
        """Actions already taken in the move in progress."""
        return self._game.legs_taken(0)

    @property
    def last_move(self) -> Move | None:
        """The last whole move played, or None."""
        if self._last_move is None:
            return None
        before, actions, turn = self._last_move
        path = tuple(self._squares_of(actions, turn))
        board = Board.from_state(self.rules, before)
        for move in board.legal_moves():
            if (move.start, *move.path) == path:
                return move
        return None

    def _squares_of(self, actions, turn: int) -> list[int]:
        """Start square then landing squares of a sequence of legs."""
        squares: list[int] = []
        for action in actions:
            leg = action_to_leg(action, self.rules.board_size, turn)
            if not squares:
                squares.append(leg.start)
            squares.append(leg.end)
        return squares

    # -------------------------------------------------------------- stepping

    def step(self, action) -> None:
        if not self.agents:
            raise IllegalMoveError("the game is over and every agent is done: call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        turn = int(self._game.to_move(0))
        try:
            result = self._game.step(0, action)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"{agent}: {exc}") from None
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in self.agents}
        self._leg_turn = turn
        if result.move_done:
            self._last_move = (self._move_start_state, result.legs, turn)
            self._move_start_state = self._game.games[0, : mg.STATE_SIZE].copy()
            if result.code == STEP_TERMINATED:
                winner = self._game.winner(0)
                if winner is not None:
                    self.rewards[self._agent_of(int(winner))] = 1
                    self.rewards[self._agent_of(1 - int(winner))] = -1
                self.terminations = {a: True for a in self.agents}
            elif result.code == STEP_TRUNCATED:
                self.truncations = {a: True for a in self.agents}
            self.agent_selection = self._agent_of(int(self._game.to_move(0)))
        self._accumulate_rewards()

    # ------------------------------------------------------------- rendering

    def render(self):
        """Draw the committed position in the render mode (None when no mode is set)."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        board = self.board
        # a capture in progress is marked by the squares of its legs so far
        legs = self._game.legs_taken(0)
        last = self._squares_of(legs, self._leg_turn) if legs else (self.last_move or False)
        if self.render_mode == "ansi":
            from .render.text import board_to_text

            return board_to_text(board, last_move=last)
        from .render.image import board_to_rgb

        image = board_to_rgb(board, last_move=last)
        if self.render_mode == "rgb_array":
            return image
        if self._window is None:
            from .render.window import PygameWindow

            self._window = PygameWindow(f"{ENV_NAME} {self.rules.name}")
        self._window.show(image)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    def __str__(self) -> str:
        return f"{ENV_NAME}({self.rules.name})"

    @property
    def episode_plies(self) -> int:
        """Whole moves played since reset."""
        return self._game.moves_played(0)

    @property
    def move_in_progress(self) -> bool:
        """Whether the agent to move is in the middle of a multi-leg capture."""
        return bool(self._game.legs_taken(0))


registered_ids: list[str] = _registration.registered_ids["pettingzoo"]
"""Ids registered with ``pettingzoo.make("aec", id)``, e.g. ``"checkers/russian-v0"``
(by ``import checkers_env``; see :mod:`checkers_env.registration`)."""
