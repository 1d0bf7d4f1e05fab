"""``VectorEnv``: many games stepped in one numba call, arrays in and arrays out.

    >>> from checkers_env.vector import VectorEnv
    >>> venv = VectorEnv("american", num_envs=4096, seed=0)
    >>> obs, masks, to_move = venv.reset()
    >>> out = venv.step(venv.sample_actions())
    >>> out.observations.shape, out.action_masks.shape, out.rewards.shape
    ((4096, 8, 8, 8), (4096, 896), (4096, 2))

Each game is the leg-level game of :mod:`checkers_env.game`, stepped by its
kernels inside one compiled loop, so it follows exactly the rules, action
encoding (encoding.py) and observation planes (observation.py) of the AEC
env, which steps the same game one at a time. An action is one
leg; during a multi-capture the same player is to move again. When a game
ends (a side cannot move, the draw rule, or the ``max_moves`` cap) the step
reports its rewards and termination or truncation, and the game is reset to
the start position at once: the observation and mask returned for that game
are already those of the new game ("same-step" autoreset).

The returned arrays are read-only views of buffers that the next ``reset`` or
``step`` overwrites: copy them to keep them.

Per-game state is the game words of :mod:`checkers_env.game` (its
docstring has the layout and why no move list is stored).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .core import movegen as mg
from .core.board import Board
from .core.jit import kernel
from .core.variants import Rules, get_rules
from .encoding import make_tables, num_actions
from .game import (
    G_LEGS,
    G_WINNER,
    GAME_SIZE,
    LEGAL_CAPACITY,
    STEP_TERMINATED,
    STEP_TRUNCATED,
    clear_mask,
    copy_words,
    init_game,
    sample_actions,
    step_game,
    write_observation,
)
from .observation import NUM_PLANES, PLY_SCALE

__all__ = ["VectorEnv", "VectorStep"]


@kernel
def _reset_all(
    games, start, params, tables, moves, scratch, ply_scale, first, obs, masks, legal, counts, to_move, planes
):
    for e in range(games.shape[0]):
        copy_words(games[e], start)
        init_game(games[e], params, moves, scratch)
        clear_mask(masks[e], legal[e], counts[e], legal.shape[1])
        turn = games[e, mg.S_TURN]
        to_move[e] = turn ^ first
        counts[e] = write_observation(
            games[e], turn, params, tables, moves, ply_scale, obs[e], masks[e], legal[e], legal.shape[1], planes
        )


@kernel
def _first_illegal(actions, masks, n_actions):
    for e in range(actions.shape[0]):
        a = actions[e]
        if a < 0 or a >= n_actions or masks[e, a] == 0:
            return e
    return -1


@kernel
def _step_all(
    actions, games, start, params, tables, moves, scratch, max_moves, ply_scale, first,
    obs, masks, legal, counts, rewards, terminations, truncations, to_move, planes,
):  # fmt: skip
    """Step every game; return -1, or the index of a game whose move buffer overflowed."""
    cap = legal.shape[1]
    for e in range(games.shape[0]):
        game = games[e]
        clear_mask(masks[e], legal[e], counts[e], cap)
        code = step_game(game, actions[e], params, tables, moves, scratch, max_moves, True)
        rewards[e, 0] = 0.0
        rewards[e, 1] = 0.0
        terminations[e] = code == STEP_TERMINATED
        truncations[e] = code == STEP_TRUNCATED
        if code < 0:
            return e
        if code >= STEP_TERMINATED:
            winner = game[G_WINNER]
            if code == STEP_TERMINATED and winner >= 0:
                p = winner ^ first
                rewards[e, p] = 1.0
                rewards[e, 1 - p] = -1.0
            copy_words(game, start)
            init_game(game, params, moves, scratch)
        turn = game[mg.S_TURN]
        to_move[e] = turn ^ first
        counts[e] = write_observation(
            game, turn, params, tables, moves, ply_scale, obs[e], masks[e], legal[e], cap, planes
        )
    return -1


class VectorStep(NamedTuple):
    """What :meth:`VectorEnv.step` returns (read-only views, overwritten by the next step)."""

    observations: np.ndarray
    """``float32[num_envs, 8, N, N]``: planes of the player to move (observation.py)."""
    action_masks: np.ndarray
    """``int8[num_envs, num_actions]``: legal next legs of the player to move."""
    rewards: np.ndarray
    """``float32[num_envs, 2]``: this step's reward of ``player_0`` and ``player_1``
    (+1/-1 on a win, 0 otherwise)."""
    terminations: np.ndarray
    """``bool[num_envs]``: the game ended by the rules at this step (then reset)."""
    truncations: np.ndarray
    """``bool[num_envs]``: the game hit ``max_moves`` at this step (then reset)."""
    agent_to_move: np.ndarray
    """``int8[num_envs]``: 0 if ``player_0`` is to move in the returned observation, else 1."""


def _read_only(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


class VectorEnv:
    """``num_envs`` games of one variant, stepped together in compiled code.

    Args:
        variant: a variant name or :class:`~checkers_env.core.Rules`.
        num_envs: number of games.
        seed: seeds the per-game generators of :meth:`sample_actions`.
        max_moves: if set, a game is truncated after this many whole moves.
        observations: if False, the observation planes are not written (the
            returned ``observations`` array stays zero): for random playouts
            and search that only need masks, rewards and positions.
        **rule_overrides: rule fields to override, e.g. ``forced_capture=False``.

    ``player_0`` is the side that moves first in the variant. Actions are
    ``int64[num_envs]`` leg indices (encoding.py); an action that is not legal
    in its game raises :class:`ValueError` before any game is stepped.
    The optional repetition draw is not supported here (it needs the game
    history); such rules raise :class:`ValueError`.
    """

    def __init__(self, variant: str | Rules = "american", num_envs: int = 1, seed: int | None = None,
                 max_moves: int | None = None, observations: bool = True, **rule_overrides):  # fmt: skip
        self.rules: Rules = get_rules(variant, **rule_overrides)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if max_moves is not None and (not isinstance(max_moves, (int, np.integer)) or max_moves < 1):
            raise ValueError(f"max_moves must be a positive integer or None, got {max_moves!r}")
        if self.rules.repetition_draw:
            raise ValueError("VectorEnv does not support repetition_draw (it keeps no game history); use the AEC env")
        self.num_envs = int(num_envs)
        self.observations_enabled = bool(observations)
        self.max_moves = int(max_moves or 0)
        size = self.rules.board_size
        self.num_actions = num_actions(size)
        self.observation_shape = (NUM_PLANES, size, size)
        self._ply_scale = self.max_moves or PLY_SCALE
        self._first = int(self.rules.first_player)
        self._params = mg.make_params(self.rules)
        self._tables = make_tables(size)
        self._start = np.zeros(GAME_SIZE, dtype=np.int64)
        self._start[: mg.STATE_SIZE] = Board(self.rules).state
        self._moves = mg.new_move_buffer()
        self._scratch = mg.new_scratch()
        e = self.num_envs
        self._games = np.zeros((e, GAME_SIZE), dtype=np.int64)
        self._obs = np.zeros((e, *self.observation_shape), dtype=np.float32)
        self._masks = np.zeros((e, self.num_actions), dtype=np.int8)
        self._legal = np.zeros((e, LEGAL_CAPACITY), dtype=np.int64)
        self._counts = np.full(e, self.num_actions + LEGAL_CAPACITY, dtype=np.int64)  # forces a full clear
        self._rewards = np.zeros((e, 2), dtype=np.float32)
        self._terminations = np.zeros(e, dtype=np.bool_)
        self._truncations = np.zeros(e, dtype=np.bool_)
        self._to_move = np.zeros(e, dtype=np.int8)
        self._actions = np.zeros(e, dtype=np.int64)
        self._rng = np.zeros(e, dtype=np.uint64)
        self._seed_rng(seed)
        self._reset_games()

    def _seed_rng(self, seed: int | None) -> None:
        words = np.random.SeedSequence(seed).generate_state(self.num_envs, dtype=np.uint64)
        self._rng[:] = words

    def _reset_games(self) -> None:
        _reset_all(
            self._games, self._start, self._params, self._tables, self._moves, self._scratch, self._ply_scale,
            self._first, self._obs, self._masks, self._legal, self._counts, self._to_move, self.observations_enabled,
        )  # fmt: skip

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start every game again; reseed :meth:`sample_actions` if ``seed`` is given.

        Returns ``(observations, action_masks, agent_to_move)`` as in :class:`VectorStep`.
        """
        if seed is not None:
            self._seed_rng(seed)
        self._reset_games()
        return _read_only(self._obs), _read_only(self._masks), _read_only(self._to_move)

    def step(self, actions) -> VectorStep:
        """Take one leg in every game (``actions``: ``int[num_envs]``)."""
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(
                f"actions must be an integer array of shape ({self.num_envs},), "
                f"got {acts.dtype} array of shape {acts.shape}"
            )
        self._actions[:] = acts
        bad = _first_illegal(self._actions, self._masks, self.num_actions)
        if bad >= 0:
            legal = np.flatnonzero(self._masks[bad]).tolist()
            raise ValueError(f"illegal action {int(acts[bad])} in game {bad}; legal actions there: {legal}")
        overflow = _step_all(
            self._actions, self._games, self._start, self._params, self._tables, self._moves, self._scratch,
            self.max_moves, self._ply_scale, self._first, self._obs, self._masks, self._legal, self._counts,
            self._rewards, self._terminations, self._truncations, self._to_move, self.observations_enabled,
        )  # fmt: skip
        if overflow >= 0:
            raise mg.MoveBufferOverflow(f"move buffer overflow in game {overflow}")
        return VectorStep(
            _read_only(self._obs),
            _read_only(self._masks),
            _read_only(self._rewards),
            _read_only(self._terminations),
            _read_only(self._truncations),
            _read_only(self._to_move),
        )

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game (``int64[num_envs]``, a new array)."""
        out = np.empty(self.num_envs, dtype=np.int64)
        sample_actions(self._rng, self._masks, self._legal, self._counts, out)
        return out

    @property
    def states(self) -> np.ndarray:
        """Copy of the committed positions, ``int64[num_envs, 8]`` (movegen's state layout)."""
        return self._games[:, : mg.STATE_SIZE].copy()

    def board(self, index: int) -> Board:
        """A :class:`~checkers_env.core.Board` of game ``index``'s committed position."""
        return Board.from_state(self.rules, self._games[index, : mg.STATE_SIZE])

    def legs_taken(self, index: int) -> int:
        """Legs already taken in game ``index``'s move in progress."""
        return int(self._games[index, G_LEGS])

    def __repr__(self) -> str:
        return f"VectorEnv({self.rules.name!r}, num_envs={self.num_envs})"
