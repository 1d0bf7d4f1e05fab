"""The single-agent Gymnasium view: the learner plays one side, an opponent the other.

    >>> import gymnasium, checkers_env
    >>> env = gymnasium.make("checkers/american-v0", opponent="random", max_moves=200)
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, info["action_mask"].shape
    ((8, 8, 8), (896,))
    >>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))

Gymnasium's wrappers do not forward methods: reach :meth:`SingleAgentEnv.action_masks`
of a ``gymnasium.make`` env through ``env.unwrapped.action_masks()`` or
``env.get_wrapper_attr("action_masks")()`` (which is what sb3-contrib's
MaskablePPO does).

The game is the leg-level game of :mod:`checkers_env.game` (one slot of
:class:`~checkers_env.game.LegGames`); no rule is re-implemented here. One
``step`` is one leg of the learner's move (the action encoding of
:mod:`checkers_env.encoding`); a multi-capture is several steps. After the
learner's move the opponent plays (see :mod:`checkers_env.opponents`) until
it is the learner's turn again or the game ends, inside the same ``step``.

| what | value |
|---|---|
| observation | ``float32[8, N, N]`` planes seen by the learner (observation.py), ``Box(0, 1)`` |
| action | one leg, ``Discrete(896)`` on 8x8, ``Discrete(1800)`` on 10x10 |
| mask | ``action_masks()`` (bool) and ``info["action_mask"]`` (int8): the learner's legal legs |
| reward | +1 when the learner wins, -1 when it loses, 0 otherwise (draws included), at the game's last step |
| terminated | the game ended by the rules, or by the learner's illegal action (``illegal_action="lose"``) |
| truncated | the ``max_moves`` cap (whole moves of both sides) |

**Illegal actions.** ``illegal_action="lose"`` (the default, as PettingZoo's
``TerminateIllegalWrapper``): a leg that is not legal (or outside the action
space) ends the game at once, lost by the learner: reward -1,
``terminated=True``, ``info["illegal_action"] = True``; the observation is
the unchanged position. So an unmasked ``action_space.sample()`` is a valid
(losing) move, as Gymnasium's and SB3's env checkers need. With
``illegal_action="raise"`` it raises :class:`~checkers_env.core.IllegalMoveError`
(a ``ValueError``) naming the legal actions, and the game is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .core.extras import missing

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:
    raise missing("gymnasium", "the single-agent Gymnasium environment", exc) from exc

from .core.board import Board
from .core.errors import IllegalMoveError
from .core.variants import Rules, get_rules
from .encoding import action_to_leg, move_to_actions, num_actions
from .game import G_LEGS, STATUS_ON, STATUS_TERMINATED, LegGames
from .observation import NUM_PLANES, PLY_SCALE
from .opponents import resolve_opponent

__all__ = ["SingleAgentEnv", "Opponent", "ILLEGAL_ACTION_OPTIONS"]

Opponent = Callable[[dict], int]
"""A player given as a callable: given the AEC observation dict (``"observation"`` planes in
its own frame and ``"action_mask"``), return a legal action."""

ILLEGAL_ACTION_OPTIONS = ("lose", "raise")
AGENT_OPTIONS = ("player_0", "player_1", "random")


class SingleAgentEnv(gymnasium.Env):
    """Gymnasium env in which the learner plays ``agent`` against ``opponent`` (module docstring).

    Args:
        variant: variant name or :class:`~checkers_env.core.Rules`.
        opponent: ``"random"`` (default; None too), an agent spec text
            (``"minimax:4"``, a checkpoint path), an agent object, or a callable
            ``opponent(observation_dict) -> action`` (:mod:`checkers_env.opponents`).
        agent: ``"player_0"`` (the side that moves first), ``"player_1"``, or
            ``"random"`` (a side drawn at each reset).
        max_moves: truncate after this many whole moves of both sides (None: no cap).
        illegal_action: ``"lose"`` or ``"raise"`` (module docstring).
        render_mode: None, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        opponent_seed: seed of an opponent built from a spec (its generator is
            reseeded from the env's at every ``reset(seed=...)``).
        **rule_overrides: rule fields to override, e.g. ``forced_capture=False``.

    An opponent that plays an illegal leg raises :class:`~checkers_env.core.IllegalMoveError`
    (the opponent is part of the environment: its error is a bug, not the learner's move).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(self, variant: str | Rules = "american", opponent: str | Opponent | Any | None = "random",
                 agent: str = "player_0", max_moves: int | None = None, illegal_action: str = "lose",
                 render_mode: str | None = None, opponent_seed: int | None = None,
                 **rule_overrides):  # fmt: skip
        rules = get_rules(variant, **rule_overrides)
        if agent not in AGENT_OPTIONS:
            raise ValueError(f"agent must be one of {AGENT_OPTIONS}, got {agent!r}")
        if illegal_action not in ILLEGAL_ACTION_OPTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_OPTIONS}, got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if max_moves is not None and (
            isinstance(max_moves, bool) or not isinstance(max_moves, (int, np.integer)) or max_moves < 1
        ):
            raise ValueError(f"max_moves must be a positive integer or None, got {max_moves!r}")
        self.rules: Rules = rules
        self.opponent = resolve_opponent(opponent, rules, opponent_seed)
        """The opponent, sorted by how it plays (:class:`~checkers_env.opponents.ResolvedOpponent`)."""
        self.agent_choice = agent
        self.agent = "player_0" if agent == "random" else agent
        """The side the learner plays in the current game."""
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.max_moves = int(max_moves or 0)
        size = rules.board_size
        self._first = int(rules.first_player)
        # Boards with their move stacks are kept only when something reads them: drawing (last move)
        # and agents (whose search may want the game's history).
        track = render_mode is not None or self.opponent.kind == "agent"
        self.game = LegGames(rules, 1, self.max_moves, ply_scale=self.max_moves or PLY_SCALE, track_moves=track)
        """The game (one slot of :class:`~checkers_env.game.LegGames`)."""
        self.observation_space = spaces.Box(low=0.0, high=1.0, shape=(NUM_PLANES, size, size), dtype=np.float32)
        self.action_space = spaces.Discrete(num_actions(size))
        self._start = Board(rules)
        self._forfeit = False
        self._window = None
        self._last_legs: tuple[int, ...] = ()
        self._last_turn = 0

    # ---------------------------------------------------------------- helpers

    @property
    def learner_color(self) -> int:
        """The learner's colour in the current game (0 White, 1 Black)."""
        return ("player_0", "player_1").index(self.agent) ^ self._first

    def _over(self) -> bool:
        return self._forfeit or self.game.status(0) != STATUS_ON

    def _observe(self) -> tuple[np.ndarray, dict]:
        self.game.observe(0, perspective=self.learner_color)
        mask = self.game.masks[0].copy()
        if self._forfeit:
            mask[:] = 0
        return self.game.obs[0].copy(), {"action_mask": mask}

    def _reward(self) -> float:
        winner = self.game.winner(0)
        if winner is None:
            return 0.0
        return 1.0 if int(winner) == self.learner_color else -1.0

    def _take(self, action: int) -> None:
        turn = int(self.game.to_move(0))
        result = self.game.step(0, action)
        if result.move_done:
            self._last_legs, self._last_turn = result.legs, turn

    def _play_opponent(self) -> None:
        """Opponent legs until the learner is to move or the game is over."""
        g = self.game
        while not self._over() and int(g.to_move(0)) != self.learner_color:
            opponent = self.opponent
            if opponent.kind == "agent" and g.games[0, G_LEGS] == 0:
                board = g.board(0)
                move = opponent.player.select_move(board)
                for action in move_to_actions(move, self.rules.board_size, int(board.turn)):
                    self._take(action)
                continue
            g.observe(0)
            if opponent.kind == "callable":
                observation = {"observation": g.obs[0].copy(), "action_mask": g.masks[0].copy()}
                action = int(opponent.player(observation))
            else:
                legal = g.legal_actions(0)
                action = legal[int(self.np_random.integers(len(legal)))]
            self._take(action)

    # -------------------------------------------------------------- Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Start a game (``options={"fen": FEN}``: from that position) and play the opponent's
        opening legs if it moves first; return the learner's observation and ``{"action_mask"}``.

        ``seed`` seeds the random side and the random opponent, and reseeds an agent opponent.
        """
        super().reset(seed=seed)
        board = self._start
        if options and options.get("fen") is not None:
            board = Board(self.rules, fen=options["fen"])
        if self.agent_choice == "random":
            self.agent = ("player_0", "player_1")[int(self.np_random.integers(2))]
        if self.opponent.kind == "agent" and hasattr(self.opponent.player, "reset"):
            # derived from the env's generator: seeded resets replay, unseeded ones differ
            self.opponent.player.reset(seed=int(self.np_random.integers(2**31)))
        self.game.load(0, board, episode_ply=0)
        self._forfeit = False
        self._last_legs = ()
        self._play_opponent()
        return self._observe()

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Take one leg of the learner's move, then the opponent's replies; see the module docstring."""
        if self._over():
            raise IllegalMoveError("the game is over: call reset() before step()")
        try:
            self._take(action)
        except IllegalMoveError:
            if self.illegal_action == "raise":
                raise
            self._forfeit = True
            obs, info = self._observe()
            info["illegal_action"] = True
            return obs, -1.0, True, False, info
        self._play_opponent()
        obs, info = self._observe()
        status = self.game.status(0)
        terminated = status == STATUS_TERMINATED
        truncated = status != STATUS_ON and not terminated
        return obs, self._reward() if terminated else 0.0, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """``bool[num_actions]``: the learner's legal legs (all False once the game is over)."""
        if self._forfeit:
            return np.zeros(self.action_space.n, dtype=bool)
        self.game.observe(0, perspective=self.learner_color, planes=False)
        return self.game.masks[0].astype(bool)

    @property
    def board(self) -> Board:
        """A :class:`~checkers_env.core.Board` of the committed position (legs of a move in progress are not on it)."""
        return self.game.board(0)

    # ------------------------------------------------------------- rendering

    def _marked_squares(self):
        legs = self.game.legs_taken(0)
        actions, turn = (legs, int(self.game.to_move(0))) if legs else (self._last_legs, self._last_turn)
        squares: list[int] = []
        for action in actions:
            leg = action_to_leg(action, self.rules.board_size, turn)
            if not squares:
                squares.append(leg.start)
            squares.append(leg.end)
        return squares or False

    def render(self):
        """Draw the committed position, the last move or the legs of a move in progress marked."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        board = self.board
        last = self._marked_squares()
        if self.render_mode == "ansi":
            from .render.text import board_to_text

            return board_to_text(board, last_move=last)
        from .render.image import board_to_rgb

        image = board_to_rgb(board, last_move=last)
        if self.render_mode == "rgb_array":
            return image
        if self._window is None:
            from .render.window import PygameWindow

            self._window = PygameWindow(f"checkers {self.rules.name}")
        self._window.show(image)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    def __repr__(self) -> str:
        return f"SingleAgentEnv({self.rules.name!r}, opponent={self.opponent.name!r}, agent={self.agent_choice!r})"
